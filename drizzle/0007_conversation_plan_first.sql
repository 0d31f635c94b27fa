-- "Plan first": a conversation remembers that its turns are sent in DAG mode.
ALTER TABLE `conversations` ADD `plan_first` integer DEFAULT false NOT NULL;
