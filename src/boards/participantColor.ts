import { createHash } from 'node:crypto';

/** Colors given to participants, picked by a hash of their id so a person keeps theirs. */
const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324', '#469990', '#800000', '#808000', '#000075'];

/** The color a participant is shown in: the same on every socket, instance and page. */
export function participantColor(userId: string): string {
  const index = createHash('sha256').update(userId).digest()[0]! % PALETTE.length;
  return PALETTE[index]!;
}
