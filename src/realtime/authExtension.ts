import type { Extension, onAuthenticatePayload } from '@hocuspocus/server';
import type { BoardAccess, BoardGrant } from '../boards/boardAccess.js';
import { frameIdOfDocument } from '../frames/frame.js';
import type { FrameDirectory } from '../frames/frameDirectory.js';
import { AppError, errors } from '../errors.js';
import { CloseEvents, closeEventFor } from './closeEvents.js';
import { boardIdOfDocument } from './documentContext.js';
import type { SocketContext } from './socketContext.js';

/**
 * Decides, per document a socket opens, whether its board token lets it in. The token
 * comes from the socket URL (checked at upgrade) or from the provider's `token` option.
 * A socket whose token is invalid, expired or for another board is closed with 1008.
 */
export class AuthExtension implements Extension {
  extensionName = 'auth';
  priority = 300;

  constructor(
    private readonly access: BoardAccess,
    private readonly frames: FrameDirectory,
  ) {}

  async onAuthenticate({ token, documentName, context, connectionConfig }: onAuthenticatePayload): Promise<Partial<SocketContext>> {
    const socket = context as SocketContext;
    let grant: BoardGrant;
    try {
      grant = socket.grant ?? (await this.access.authenticate(token));
      if (boardIdOfDocument(documentName) !== grant.board.id) {
        throw errors.unauthorized('The token is not valid for this document');
      }
      this.access.checkIdentity(grant, socket.identity);
    } catch (error) {
      const event = error instanceof AppError ? closeEventFor(error) : CloseEvents.Unavailable;
      socket.closeSocket(event);
      // A plain object, not an Error: Hocuspocus sends its `reason` in PermissionDenied and
      // only logs errors that have a message (refused tokens are routine, not server errors).
      throw { reason: event.reason };
    }
    socket.admission.grant ??= grant;
    const frameId = frameIdOfDocument(documentName);
    if (frameId) {
      // A zone the participant may not see is refused for that document only; the socket stays.
      const viewer = { role: grant.role, userId: socket.identity.userId };
      const zone = await this.frames.accessToZoneDocument(grant.board.id, frameId, viewer);
      if (zone === 'none') throw { reason: CloseEvents.ZoneForbidden.reason };
      connectionConfig.readOnly = zone === 'read';
    }
    return { grant, boardId: grant.board.id, organizationId: grant.board.organizationId, userId: socket.identity.userId };
  }
}
