CREATE TABLE `reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`title` text NOT NULL,
	`question` text DEFAULT '{}' NOT NULL,
	`inclusion_criteria` text DEFAULT '[]' NOT NULL,
	`exclusion_criteria` text DEFAULT '[]' NOT NULL,
	`exclusion_reasons` text DEFAULT '[]' NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `reviews_user_idx` ON `reviews` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `review_sources` (
	`id` text PRIMARY KEY NOT NULL,
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`format` text,
	`query` text,
	`details` text DEFAULT '{}' NOT NULL,
	`record_count` integer NOT NULL,
	`duplicates_removed` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_sources_review_idx` ON `review_sources` (`review_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `review_records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`source_id` text NOT NULL,
	`position` integer NOT NULL,
	`origin` text NOT NULL,
	`title` text NOT NULL,
	`abstract` text,
	`authors` text DEFAULT '[]' NOT NULL,
	`year` integer,
	`journal` text,
	`doi` text,
	`pmid` text,
	`keywords` text,
	`url` text,
	`study_id` integer,
	`uploaded_study_id` integer,
	`duplicate_of` integer,
	`duplicate_reason` text,
	`not_duplicate` integer DEFAULT false NOT NULL,
	`ta_decision` text,
	`ta_reason` text,
	`ta_decided_at` integer,
	`ft_decision` text,
	`ft_reason` text,
	`ft_decided_at` integer,
	`full_text_key` text,
	`full_text_url` text,
	`full_text` text,
	`suggestion` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_id`) REFERENCES `review_sources`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`study_id`) REFERENCES `studies`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`uploaded_study_id`) REFERENCES `uploaded_studies`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `review_records_review_idx` ON `review_records` (`review_id`,`duplicate_of`);--> statement-breakpoint
CREATE INDEX `review_records_source_idx` ON `review_records` (`source_id`,`position`);--> statement-breakpoint
CREATE TABLE `review_decisions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_id` text NOT NULL,
	`user_id` text NOT NULL,
	`record_id` integer NOT NULL,
	`stage` text NOT NULL,
	`decision` text NOT NULL,
	`reason` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`record_id`) REFERENCES `review_records`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `review_decisions_review_idx` ON `review_decisions` (`review_id`,`stage`,`id`);--> statement-breakpoint
CREATE TABLE `review_rankings` (
	`review_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`version` integer NOT NULL,
	`mode` text NOT NULL,
	`ranked` text NOT NULL,
	`estimated_relevant_remaining` real,
	`computed_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`review_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
