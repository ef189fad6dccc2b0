import type { Extension, onAuthenticatePayload } from '@hocuspocus/server';
import { isSharedGuestLink, owningUserId, type BoardAccess, type BoardGrant } from '../boards/boardAccess.js';
import type { SessionParticipants } from '../boards/sessionParticipants.js';
import type { Logger } from '../logger.js';
import { parseDocumentName, type DocumentName } from '../store/documentNames.js';
import type { FrameDirectory } from '../frames/frameDirectory.js';
import { AppError, errors } from '../errors.js';
import { CloseEvents, closeEventFor } from './closeEvents.js';
import type { SocketContext } from './socketContext.js';
import { viewerOfGrant } from './viewer.js';

/**
 * Decides, per document a socket opens, whether its board token lets it in. The token
 * comes from the socket URL (checked at upgrade) or from the provider's `token` option.
 * A socket whose token is invalid, expired or for another board, or that names a document
 * outside the layout, is closed with 1008 before any document is created.
 */
export class AuthExtension implements Extension {
  extensionName = 'auth';
  priority = 300;

  constructor(
    private readonly access: BoardAccess,
    private readonly frames: FrameDirectory,
    private readonly sessions: Pick<SessionParticipants, 'mint'>,
    private readonly logger: Logger,
  ) {}

  async onAuthenticate({ token, documentName, context, connectionConfig }: onAuthenticatePayload): Promise<Partial<SocketContext>> {
    const socket = context as SocketContext;
    let grant: BoardGrant;
    let document: DocumentName;
    try {
      grant = await this.grantOf(socket, token);
      const name = parseDocumentName(documentName);
      if (name?.boardId !== grant.board.id) throw errors.unauthorized('The token is not valid for this document');
      document = name;
      this.access.admit(grant);
      grant = await this.sessionOf(socket, grant);
    } catch (error) {
      const event = error instanceof AppError ? closeEventFor(error) : CloseEvents.Unavailable;
      socket.closeSocket(event);
      // A plain object, not an Error: Hocuspocus sends its `reason` in PermissionDenied and
      // only logs errors that have a message (refused tokens are routine, not server errors).
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw { reason: event.reason };
    }
    socket.admission.grant ??= grant;
    if (document.kind === 'zone') {
      // A zone the participant may not see is refused for that document only; the socket stays.
      const zone = await this.frames.accessToZoneDocument(grant.board.id, document.frameId, viewerOfGrant(grant, socket.declared));
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- as above: a refusal, not an error
      if (zone === 'none') throw { reason: CloseEvents.ZoneForbidden.reason };
      connectionConfig.readOnly = zone === 'read';
    }
    return { grant, boardId: grant.board.id, organizationId: grant.board.organizationId, userId: owningUserId(grant, socket.declared.userId) };
  }

  /**
   * A socket of the shared guest link acts as the session participant minted for it, the same
   * one for every document it opens; where none can be minted it stays an anonymous guest.
   */
  private async sessionOf(socket: SocketContext, grant: BoardGrant): Promise<BoardGrant> {
    if (!isSharedGuestLink(grant)) return grant;
    socket.admission.session ??= this.sessions.mint(grant, socket.declared.userName).catch((error: unknown) => {
      this.logger.warn({ err: error, board_id: grant.board.id, socket_id: socket.socketId }, 'session participant not minted');
      return null;
    });
    const session = await socket.admission.session;
    return session?.grant.board.id === grant.board.id ? session.grant : grant;
  }

  /**
   * The grant of the socket URL's token, or of the provider's. A personal link may be revoked
   * while its socket is open, so its grant is read again for every document it opens (the
   * board's shared links live as long as the board, whose end closes every socket).
   */
  private async grantOf(socket: SocketContext, token: string): Promise<BoardGrant> {
    if (socket.grant && !socket.grant.user) return socket.grant;
    return this.access.authenticateSocket(socket.urlToken ?? token);
  }
}
