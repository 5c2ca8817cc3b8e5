-- Memories searched per owner: the FTS5 index becomes contentless (with deletes) and gains `owner`, one token per
-- memory (the hex of `scope:subject`), so a search intersects the asker's own memories with the words asked for
-- and ranks only those, however many others match. Replaces the index of the memory_search migration and
-- rebuilds it from the table.
DROP TRIGGER IF EXISTS `memories_fts_insert`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `memories_fts_delete`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `memories_fts_update`;
--> statement-breakpoint
DROP TABLE IF EXISTS `memories_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `memories_fts` USING fts5(`text`, `owner`, content='', contentless_delete=1, tokenize='porter unicode61');
--> statement-breakpoint
INSERT INTO `memories_fts`(rowid, `text`, `owner`) SELECT `id`, `text`, hex(`scope` || ':' || `subject`) FROM `memories`;
--> statement-breakpoint
CREATE TRIGGER `memories_fts_insert` AFTER INSERT ON `memories` BEGIN
  INSERT INTO `memories_fts`(rowid, `text`, `owner`) VALUES (new.`id`, new.`text`, hex(new.`scope` || ':' || new.`subject`));
END;
--> statement-breakpoint
CREATE TRIGGER `memories_fts_delete` AFTER DELETE ON `memories` BEGIN
  DELETE FROM `memories_fts` WHERE rowid = old.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `memories_fts_update` AFTER UPDATE OF `text`, `scope`, `subject` ON `memories` BEGIN
  DELETE FROM `memories_fts` WHERE rowid = old.`id`;
  INSERT INTO `memories_fts`(rowid, `text`, `owner`) VALUES (new.`id`, new.`text`, hex(new.`scope` || ':' || new.`subject`));
END;
