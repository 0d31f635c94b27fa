ALTER TABLE `conversations` ADD `active_leaf_id` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `parent_id` text REFERENCES messages(id) ON DELETE cascade;--> statement-breakpoint
ALTER TABLE `runs` ADD `question_id` text;--> statement-breakpoint
-- Earlier conversations were one line: each message follows the one before it that is not an
-- interrupt (a user message of a run); an interrupt follows the last question before it.
UPDATE `messages` SET `parent_id` = (
  SELECT `p`.`id` FROM `messages` AS `p`
  WHERE `p`.`conversation_id` = `messages`.`conversation_id`
    AND (`p`.`created_at`, `p`.`rowid`) < (`messages`.`created_at`, `messages`.`rowid`)
    AND CASE WHEN `messages`.`role` = 'user' AND `messages`.`run_id` IS NOT NULL
      THEN `p`.`role` = 'user' AND `p`.`run_id` IS NULL
      ELSE NOT (`p`.`role` = 'user' AND `p`.`run_id` IS NOT NULL) END
  ORDER BY `p`.`created_at` DESC, `p`.`rowid` DESC LIMIT 1
);--> statement-breakpoint
-- A run answers the last question stored before it started (both are stored in one transaction).
UPDATE `runs` SET `question_id` = (
  SELECT `m`.`id` FROM `messages` AS `m`
  WHERE `m`.`conversation_id` = `runs`.`conversation_id` AND `m`.`role` = 'user' AND `m`.`run_id` IS NULL
    AND `m`.`created_at` <= `runs`.`started_at`
  ORDER BY `m`.`created_at` DESC, `m`.`rowid` DESC LIMIT 1
);--> statement-breakpoint
-- The branch shown is the whole line: it ends at the conversation's last message that is not an interrupt.
UPDATE `conversations` SET `active_leaf_id` = (
  SELECT `m`.`id` FROM `messages` AS `m`
  WHERE `m`.`conversation_id` = `conversations`.`id` AND NOT (`m`.`role` = 'user' AND `m`.`run_id` IS NOT NULL)
  ORDER BY `m`.`created_at` DESC, `m`.`rowid` DESC LIMIT 1
);
