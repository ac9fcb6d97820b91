ALTER TABLE `meta_analysis_jobs` ADD `stage` text DEFAULT 'queued' NOT NULL;--> statement-breakpoint
ALTER TABLE `meta_analysis_jobs` ADD `stage_detail` text;--> statement-breakpoint
UPDATE `meta_analysis_jobs` SET `stage` = `status` WHERE `status` IN ('done', 'failed');--> statement-breakpoint
ALTER TABLE `uploaded_studies` ADD `progress` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `uploaded_studies` ADD `stage_detail` text;--> statement-breakpoint
UPDATE `uploaded_studies` SET `progress` = 100 WHERE `status` IN ('ready', 'failed');
