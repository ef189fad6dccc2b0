/** What the page's address says: which board, with which token, as whom (shared guest link only). */
export interface BoardLink {
  boardId: string;
  token: string;
  /** Declared display identity for the shared guest link (it owns nothing). */
  declaredUserId: string | null;
  declaredUserName: string | null;
  origin: string;
}

export function readBoardLink(location: Location): BoardLink | null {
  const match = /^\/boards\/([0-9a-f-]{36})\/?$/i.exec(location.pathname);
  const params = new URLSearchParams(location.search);
  const token = params.get('token');
  if (!match || !token) return null;
  return {
    boardId: match[1]!.toLowerCase(),
    token,
    declaredUserId: params.get('user_id'),
    declaredUserName: params.get('user_name'),
    origin: location.origin,
  };
}

/**
 * The key of everything this page keeps on the device for one board and one credential: a
 * different board, or another person's link on a shared device, never reads or merges
 * another's copy. The token is hashed so the key names no secret.
 */
export async function deviceKeyOf(link: BoardLink): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(link.token));
  const hex = [...new Uint8Array(digest).slice(0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `wb:${link.boardId}:${hex}`;
}
