CREATE TABLE `ai_summaries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`study_id` integer NOT NULL,
	`feature` text DEFAULT 'summary' NOT NULL,
	`focus` text DEFAULT '' NOT NULL,
	`model` text NOT NULL,
	`content` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`study_id`) REFERENCES `studies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ai_summaries_key_unique` ON `ai_summaries` (`study_id`,`feature`,`focus`,`model`);--> statement-breakpoint
CREATE INDEX `ai_summaries_study_idx` ON `ai_summaries` (`study_id`,`feature`,`updated_at`);--> statement-breakpoint
CREATE TABLE `search_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`query` text NOT NULL,
	`filters` text NOT NULL,
	`providers` text NOT NULL,
	`result_count` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `search_history_user_idx` ON `search_history` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `studies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`doi` text,
	`pmid` text,
	`pmcid` text,
	`title_key` text NOT NULL,
	`title` text NOT NULL,
	`abstract` text,
	`authors` text NOT NULL,
	`journal` text,
	`publication_date` text,
	`source` text NOT NULL,
	`source_id` text NOT NULL,
	`study_type` text NOT NULL,
	`publication_types` text NOT NULL,
	`full_text_available` integer DEFAULT false NOT NULL,
	`is_open_access` integer DEFAULT false NOT NULL,
	`open_access_url` text,
	`url` text,
	`impact_factor` real,
	`citation_count` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `studies_doi_unique` ON `studies` (`doi`);--> statement-breakpoint
CREATE UNIQUE INDEX `studies_pmid_unique` ON `studies` (`pmid`);--> statement-breakpoint
CREATE INDEX `studies_title_key_idx` ON `studies` (`title_key`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`profile_image_url` text,
	`plan` text DEFAULT 'free' NOT NULL,
	`subscription_platform` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);