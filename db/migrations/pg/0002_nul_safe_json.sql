-- Custom SQL migration (drizzle-kit cannot express a function; made by `drizzle-kit generate
-- --custom` and filled by hand). PostgreSQL's json operators (`->`, `->>`, `#>`) fail with
-- SQLSTATE 22P05 on a body that holds `\u0000` anywhere, even in a key they do not read: text
-- cannot hold a NUL. SQLite keeps such a body. nul_safe_json(body) is the body with each escaped
-- NUL (a `\u0000` not itself escaped by a backslash) written as `\ufdd0`, a noncharacter that
-- JSON.stringify never writes as an escape, so the operators read everything else as stored.
-- The page-parent index and every query that reads into documents.body go through it
-- (docs/postgresql.md); the stored body stays exactly as written.
CREATE FUNCTION nul_safe_json(body json) RETURNS json LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
  SELECT CASE WHEN strpos(body::text, '\u0000') = 0 THEN body
    ELSE regexp_replace(body::text, '(?<!\\)((?:\\\\)*)\\u0000', '\1\\ufdd0', 'g')::json END
$fn$;
