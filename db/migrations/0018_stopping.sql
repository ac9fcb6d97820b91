-- Issue 27: the stopping criterion (hypergeometric test, Callaghan & Müller-Hansen 2020) stored with each review's ranking.
ALTER TABLE `review_rankings` ADD `stopping` text;
