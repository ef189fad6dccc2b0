/** What a board access token lets its holder do (shared with the browser client's zone rules). */
export type BoardRole = 'host' | 'guest';
