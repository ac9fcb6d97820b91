-- Issue 27: the stopping criterion (hypergeometric test, Callaghan & Müller-Hansen 2020) stored with each review's ranking.
ALTER TABLE `review_rankings` ADD `stopping` text;
-- Issue 27 (20,000-record reviews): screening's progress counts and the re-ranking's read of the decisions from an index, not the records' wide rows.
CREATE INDEX `review_records_screening_idx` ON `review_records` (`review_id`,`duplicate_of`,`ta_decision`,`ta_decided_at`);
