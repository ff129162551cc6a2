-- Children by fields.parent, for the pages below a moved or taken-down page (api/webhooks/events.ts).
-- Written by hand: drizzle-kit quotes the expression apart. A query uses the index only with this
-- very expression and `kind = 'canonical'`.
CREATE INDEX `documents_page_parent` ON `documents` (`team_id`, json_extract(`body`, '$.fields.parent')) WHERE `kind` = 'canonical';
