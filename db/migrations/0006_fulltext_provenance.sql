ALTER TABLE `ai_summaries` ADD `owner_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `ai_summaries` ADD `source_url` text;--> statement-breakpoint
DROP INDEX IF EXISTS `ai_summaries_key_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `ai_summaries_key_unique` ON `ai_summaries` (`study_id`,`feature`,`focus`,`model`,`owner_id`);--> statement-breakpoint
DELETE FROM `ai_summaries` WHERE `feature` = 'fulltext';
