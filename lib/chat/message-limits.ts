/** What one question may hold: a new turn, a follow-up and an imported question alike. */
export const MAX_MESSAGE_CHARS = 100_000;
export const MAX_ATTACHMENTS_PER_MESSAGE = 20;
