-- Full-text search over memories (FTS5, contentless with deletes). `owner` is one token per memory, the hex of
-- `scope:subject`, so a search is the intersection of the asker's own owners with the words asked for: it
-- ranks only memories the asker may see, however many others match. The triggers keep the index in step.
CREATE VIRTUAL TABLE `memories_fts` USING fts5(`text`, `owner`, content='', contentless_delete=1, tokenize='porter unicode61');
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
