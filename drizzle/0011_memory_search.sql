-- Full-text search over memories (FTS5, external content): the triggers keep the index in step with the table.
CREATE VIRTUAL TABLE `memories_fts` USING fts5(`text`, content='memories', content_rowid='id', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `memories_fts_insert` AFTER INSERT ON `memories` BEGIN
  INSERT INTO `memories_fts`(rowid, `text`) VALUES (new.`id`, new.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_fts_delete` AFTER DELETE ON `memories` BEGIN
  INSERT INTO `memories_fts`(`memories_fts`, rowid, `text`) VALUES ('delete', old.`id`, old.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `memories_fts_update` AFTER UPDATE OF `text` ON `memories` BEGIN
  INSERT INTO `memories_fts`(`memories_fts`, rowid, `text`) VALUES ('delete', old.`id`, old.`text`);
  INSERT INTO `memories_fts`(rowid, `text`) VALUES (new.`id`, new.`text`);
END;
