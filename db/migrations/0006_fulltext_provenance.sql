ALTER TABLE `ai_summaries` ADD `owner_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `ai_summaries` ADD `source_url` text;--> statement-breakpoint
DROP INDEX IF EXISTS `ai_summaries_key_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `ai_summaries_key_unique` ON `ai_summaries` (`study_id`,`feature`,`focus`,`model`,`owner_id`);--> statement-breakpoint
DELETE FROM `ai_summaries` WHERE `feature` = 'fulltext';--> statement-breakpoint
CREATE TABLE `pending_multipart_uploads` (
	`upload_id` text PRIMARY KEY NOT NULL,
	`r2_key` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);--> statement-breakpoint
CREATE INDEX `pending_multipart_uploads_created_idx` ON `pending_multipart_uploads` (`created_at`);--> statement-breakpoint
CREATE TABLE `reconcile_requeues` (
	`kind` text NOT NULL,
	`item_id` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`kind`, `item_id`)
);
