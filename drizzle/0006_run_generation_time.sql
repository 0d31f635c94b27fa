-- How long the model took to write a run's output tokens (Ollama's eval_duration, summed), for tokens per second.
ALTER TABLE `runs` ADD `generation_ms` integer;
