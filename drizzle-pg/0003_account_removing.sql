-- An account being removed (lib/chat/account-removal.ts): a start on any instance checks it where it locks its
-- conversation, so none stores a run once the removal began.
ALTER TABLE "users" ADD COLUMN "removing_at" bigint;
