/** Longest user id, user name and external id a personal link keeps. */
export const MAX_PARTICIPANT_FIELD_LENGTH = 255;

/** Null or absent means none. */
const optionalText = { type: ['string', 'null'], minLength: 1, maxLength: MAX_PARTICIPANT_FIELD_LENGTH };

/** `POST /boards/<id>/participant-links`. */
export const issueParticipantLinkSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['user_id'],
  properties: {
    user_id: { type: 'string', minLength: 1, maxLength: MAX_PARTICIPANT_FIELD_LENGTH },
    user_name: optionalText,
    external_user_id: optionalText,
    external_source: optionalText,
  },
  // Only a verified student (one with an external id) carries an external source.
  if: { required: ['external_source'], properties: { external_source: { type: 'string' } } },
  then: { required: ['external_user_id'] },
};

/** `POST /boards/<id>/session-participants`: the name the guest shows (optional; it owns nothing). */
export const startSessionParticipantSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { user_name: optionalText },
};

export interface StartSessionParticipantInput {
  user_name?: string | null;
}

export interface IssueParticipantLinkInput {
  user_id: string;
  user_name?: string | null;
  external_user_id?: string | null;
  external_source?: string | null;
}
