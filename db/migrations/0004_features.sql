CREATE TABLE `meta_analysis_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`device_key` text,
	`status` text DEFAULT 'queued' NOT NULL,
	`progress` integer DEFAULT 0 NOT NULL,
	`error` text,
	`request` text NOT NULL,
	`result` text,
	`meter` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `meta_analysis_jobs_user_idx` ON `meta_analysis_jobs` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `meta_analysis_jobs_device_idx` ON `meta_analysis_jobs` (`device_key`,`created_at`);--> statement-breakpoint
CREATE TABLE `uploaded_studies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`r2_key` text,
	`file_name` text NOT NULL,
	`file_size` integer NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`failure_reason` text,
	`failure_code` text,
	`title` text NOT NULL,
	`authors` text DEFAULT '[]' NOT NULL,
	`journal` text,
	`publication_date` text,
	`doi` text,
	`abstract` text,
	`full_text_content` text,
	`study_type` text,
	`keywords` text DEFAULT '[]' NOT NULL,
	`mesh_terms` text DEFAULT '[]' NOT NULL,
	`journal_impact_factor` real,
	`pages_read` integer,
	`total_pages` integer,
	`ai_summary` text,
	`ai_summary_model` text,
	`full_text_analysis` text,
	`full_text_analysis_model` text,
	`uploaded_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `uploaded_studies_user_idx` ON `uploaded_studies` (`user_id`,`uploaded_at`);--> statement-breakpoint
CREATE TABLE `bookmarks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`study_id` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`study_id`) REFERENCES `studies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bookmarks_user_study_unique` ON `bookmarks` (`user_id`,`study_id`);--> statement-breakpoint
CREATE INDEX `bookmarks_user_idx` ON `bookmarks` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `saved_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`study_ids` text NOT NULL,
	`report_data` text NOT NULL,
	`html_content` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `saved_reports_user_idx` ON `saved_reports` (`user_id`,`created_at`);