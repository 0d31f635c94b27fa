-- Answers are stored as the model wrote them; a run's error stays on the run. Earlier versions
-- appended "\n\n**Error:** <runs.error>" (or only that line) to a failed answer: cut exactly that suffix.
UPDATE `messages` SET `content` = rtrim(
  substr(`content`, 1, length(`content`) - length('**Error:** ' || (SELECT `error` FROM `runs` WHERE `runs`.`id` = `messages`.`run_id`))),
  char(10)
)
WHERE `role` = 'assistant' AND `status` = 'error'
  AND (SELECT `error` FROM `runs` WHERE `runs`.`id` = `messages`.`run_id`) IS NOT NULL
  AND substr(`content`, -length('**Error:** ' || (SELECT `error` FROM `runs` WHERE `runs`.`id` = `messages`.`run_id`)))
    = '**Error:** ' || (SELECT `error` FROM `runs` WHERE `runs`.`id` = `messages`.`run_id`);
--> statement-breakpoint
-- Interrupts carry ids: a stored interrupt step's texts ("messages") become {id, text} objects.
UPDATE `run_events` SET `data` = json_set(json_remove(`data`, '$.messages'), '$.interrupts', json((
  SELECT json_group_array(json_object('id', lower(hex(randomblob(16))), 'text', `value`) ORDER BY `key`)
  FROM json_each(`run_events`.`data`, '$.messages')
)))
WHERE `type` = 'step' AND json_extract(`data`, '$.type') = 'interrupt' AND json_type(`data`, '$.messages') = 'array';
--> statement-breakpoint
-- The same for the interrupts a run never took, listed in its stored `done`.
UPDATE `run_events` SET `data` = json_set(`data`, '$.pendingInterrupts', json((
  SELECT json_group_array(json_object('id', lower(hex(randomblob(16))), 'text', `value`) ORDER BY `key`)
  FROM json_each(`run_events`.`data`, '$.pendingInterrupts')
)))
WHERE `type` = 'done' AND json_type(`data`, '$.pendingInterrupts[0]') = 'text';
--> statement-breakpoint
-- Steps stored before they carried their time get the time they were stored.
UPDATE `run_events` SET `data` = json_set(`data`, '$.at', `created_at`)
WHERE `type` = 'step' AND json_type(`data`, '$.at') IS NULL;
