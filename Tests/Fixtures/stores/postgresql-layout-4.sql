SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

CREATE SCHEMA larder_fixture;

SET default_tablespace = '';

SET default_table_access_method = heap;

CREATE TABLE larder_fixture.caches (
    id bigint NOT NULL,
    name text NOT NULL COLLATE pg_catalog."C",
    config text NOT NULL,
    app_version text,
    key_check bytea,
    rekey_check bytea,
    rekey_cursor bigint,
    generation bytea,
    rekey_generation bytea
);

ALTER TABLE larder_fixture.caches ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME larder_fixture.caches_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE larder_fixture.changes (
    sequence bigint NOT NULL,
    keys bytea
);

CREATE TABLE larder_fixture.commits (
    id smallint NOT NULL,
    sequence bigint NOT NULL,
    CONSTRAINT commits_id_check CHECK ((id = 1))
);

CREATE TABLE larder_fixture."entity.Author" (
    name text NOT NULL COLLATE pg_catalog."C",
    born bigint
);

CREATE TABLE larder_fixture."entity.Book" (
    title text NOT NULL COLLATE pg_catalog."C",
    year bigint NOT NULL,
    author text COLLATE pg_catalog."C"
);

CREATE TABLE larder_fixture.entity_models (
    name text NOT NULL COLLATE pg_catalog."C",
    definition text NOT NULL
);

CREATE TABLE larder_fixture.entries (
    id bigint NOT NULL,
    cache bigint NOT NULL,
    grp bytea NOT NULL,
    key bytea NOT NULL,
    kind integer NOT NULL,
    value bytea NOT NULL,
    size bigint NOT NULL,
    stored_at bigint NOT NULL,
    validated_at bigint NOT NULL,
    ttl bigint,
    used bigint NOT NULL,
    expires_at bigint,
    sealed_key bytea
);

ALTER TABLE larder_fixture.entries ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME larder_fixture.entries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE larder_fixture.meta (
    name text NOT NULL,
    value text NOT NULL
);

CREATE TABLE larder_fixture.schemas (
    type text NOT NULL COLLATE pg_catalog."C",
    version text NOT NULL COLLATE pg_catalog."C",
    definition text NOT NULL
);

CREATE TABLE larder_fixture.store_meta (
    name text NOT NULL COLLATE pg_catalog."C",
    value text NOT NULL
);

INSERT INTO larder_fixture.caches OVERRIDING SYSTEM VALUE VALUES (1, 'thumbnails', '{"persistent":true,"memory":{"maxCount":10000,"maxBytes":67108864},"disk":{"maxCount":100,"maxBytes":0},"lifespan":0,"returnsExpired":false}', '3.1.0', NULL, NULL, NULL, NULL, NULL);
INSERT INTO larder_fixture.caches OVERRIDING SYSTEM VALUE VALUES (2, 'drafts', '{"persistent":true,"memory":{"maxCount":10000,"maxBytes":67108864},"disk":{"maxCount":0,"maxBytes":0},"lifespan":0,"returnsExpired":false,"kind":"store"}', '3.1.0', NULL, NULL, NULL, NULL, NULL);
INSERT INTO larder_fixture.caches OVERRIDING SYSTEM VALUE VALUES (3, 'secrets', '{"persistent":true,"memory":{"maxCount":10000,"maxBytes":67108864},"disk":{"maxCount":0,"maxBytes":0},"lifespan":0,"returnsExpired":false,"encrypted":true}', '3.1.0', '\xcaa3d9168ab7a6d1bb59312c658c786b', NULL, NULL, '\x69dcb1fe3d5fae74ac54139662dd4459', NULL);
INSERT INTO larder_fixture.caches OVERRIDING SYSTEM VALUE VALUES (4, 'default', '{"persistent":true,"memory":{"maxCount":10000,"maxBytes":67108864},"disk":{"maxCount":0,"maxBytes":0},"lifespan":0,"returnsExpired":false}', '3.1.0', NULL, NULL, NULL, NULL, NULL);

INSERT INTO larder_fixture.changes VALUES (1, NULL);
INSERT INTO larder_fixture.changes VALUES (2, NULL);
INSERT INTO larder_fixture.changes VALUES (3, '\x000000000000000100000000000000000161');
INSERT INTO larder_fixture.changes VALUES (4, '\x00000000000000010000000005736d616c6c0000000162');
INSERT INTO larder_fixture.changes VALUES (5, '\x00000000000000010000000005736d616c6c0000000163');
INSERT INTO larder_fixture.changes VALUES (6, NULL);
INSERT INTO larder_fixture.changes VALUES (7, '\x00000000000000020000000000000000026431');
INSERT INTO larder_fixture.changes VALUES (8, '\x0000000000000002000000000167000000017900000000000000020000000001670000000178');
INSERT INTO larder_fixture.changes VALUES (9, NULL);
INSERT INTO larder_fixture.changes VALUES (10, '\x000000000000000301');
INSERT INTO larder_fixture.changes VALUES (11, '\x000000000000000301');
INSERT INTO larder_fixture.changes VALUES (12, NULL);
INSERT INTO larder_fixture.changes VALUES (13, NULL);
INSERT INTO larder_fixture.changes VALUES (14, NULL);
INSERT INTO larder_fixture.changes VALUES (15, '\x000000000000000400000000000000000a62617220617420312e31');
INSERT INTO larder_fixture.changes VALUES (16, NULL);
INSERT INTO larder_fixture.changes VALUES (17, '\x');
INSERT INTO larder_fixture.changes VALUES (18, '\x');

INSERT INTO larder_fixture.commits VALUES (1, 18);

INSERT INTO larder_fixture."entity.Author" VALUES ('Le Guin', 1929);
INSERT INTO larder_fixture."entity.Author" VALUES ('Lem', NULL);

INSERT INTO larder_fixture."entity.Book" VALUES ('The Dispossessed', 1974, 'Le Guin');
INSERT INTO larder_fixture."entity.Book" VALUES ('Solaris', 1961, 'Lem');

INSERT INTO larder_fixture.entity_models VALUES ('Library', '{"model":"Library","casing":"camelCase","dateFormat":"iso8601","reservedWords":["description"],"entities":[{"name":"Author","identifier":"name","attributes":{"name":"string","born":{"optional":"integer"}},"relationships":[{"name":"books","destination":"Book","toMany":true,"inverse":"author","deleteRule":"cascade"}]},{"name":"Book","identifier":"title","attributes":{"title":"string","year":"integer"},"relationships":[{"name":"author","destination":"Author","toMany":false,"inverse":"books","deleteRule":"nullify"}]}]}');

INSERT INTO larder_fixture.entries OVERRIDING SYSTEM VALUE VALUES (1, 1, '\x', '\x61', 0, '\x7b2277223a36342c2268223a34387d', 15, 1795783827696, 1795783827696, NULL, 1, NULL, NULL);
INSERT INTO larder_fixture.entries OVERRIDING SYSTEM VALUE VALUES (2, 1, '\x736d616c6c', '\x62', 1, '\x000102ff', 4, 1795783827707, 1795783827707, NULL, 2, NULL, NULL);
INSERT INTO larder_fixture.entries OVERRIDING SYSTEM VALUE VALUES (3, 1, '\x736d616c6c', '\x63', 0, '\x5b312c2274776f222c6e756c6c5d', 14, 1795783827709, 1795783827709, 1576800000000, 3, 3372583827709, NULL);
INSERT INTO larder_fixture.entries OVERRIDING SYSTEM VALUE VALUES (4, 2, '\x', '\x6431', 0, '\x7b227469746c65223a226b657074222c22626f6479223a22c3bc6ec3af63c3b664c3a920e29c93227d', 41, 1795783827712, 1795783827712, NULL, 4, NULL, NULL);
INSERT INTO larder_fixture.entries OVERRIDING SYSTEM VALUE VALUES (5, 2, '\x67', '\x78', 0, '\x31', 1, 1795783827713, 1795783827713, NULL, 5, NULL, NULL);
INSERT INTO larder_fixture.entries OVERRIDING SYSTEM VALUE VALUES (6, 2, '\x67', '\x79', 0, '\x322e35', 3, 1795783827713, 1795783827713, NULL, 6, NULL, NULL);
INSERT INTO larder_fixture.entries OVERRIDING SYSTEM VALUE VALUES (7, 3, '\x9d1dd541efaea2a65cdb3cf87f06c669', '\xe948f96c2daae6475209030f1d378a45', 0, '\x0125e9e37e67ae995e28a4a74e6f03c86f0b5d376defeb917cafc1a7a08c343c0755c8f0df487d29f37fae34452ee36e417c2fe2', 23, 1795783827735, 1795783827735, NULL, 7, NULL, '\x01cea7b00785cfd27a4accd8e1a8570eeb2fc0cb8ef17f25cd4df259d2f6956c659c364dfe0b33b368d6ea0d88');
INSERT INTO larder_fixture.entries OVERRIDING SYSTEM VALUE VALUES (8, 3, '\xe17f405ee24450ef4ec972d816f6876c', '\x027e20572a955a914631b036389958b6', 1, '\x01114943ae7f562abc870b8d12bea7cf69da8eca3a28cf8e70d34ec5b155653f072ab2', 6, 1795783827737, 1795783827737, NULL, 8, NULL, '\x01441f254f6256e9f4a57c4b0d3c4119927ab9c05971c9d469f74ea6c464aaa569e5206cae95');
INSERT INTO larder_fixture.entries OVERRIDING SYSTEM VALUE VALUES (9, 4, '\x', '\x6261722061742031', 2, '\x7b222474797065223a22426172222c222476657273696f6e223a22312e302e30222c222476616c7565223a7b2273223a226f6e65222c226e223a317d7d', 61, 1795783827755, 1795783827755, NULL, 9, NULL, NULL);
INSERT INTO larder_fixture.entries OVERRIDING SYSTEM VALUE VALUES (10, 4, '\x', '\x62617220617420312e31', 2, '\x7b222474797065223a22426172222c222476657273696f6e223a22312e312e30222c222476616c7565223a7b2274657874223a2274776f222c226e223a327d7d', 64, 1795783827758, 1795783827758, NULL, 10, NULL, NULL);

INSERT INTO larder_fixture.meta VALUES ('schemaVersion', '4');

INSERT INTO larder_fixture.schemas VALUES ('Bar', '1.0.0', '{"type":"Bar","version":"1.0.0","fields":{"s":"string","n":"integer"}}');
INSERT INTO larder_fixture.schemas VALUES ('Bar', '1.1.0', '{"type":"Bar","version":"1.1.0","fields":{"text":"string","n":"integer"},"migrations":[{"from":["1.0.0"],"steps":[{"op":"rename","from":"s","to":"text"}]}]}');

INSERT INTO larder_fixture.store_meta VALUES ('appVersion', '3.1.0');
INSERT INTO larder_fixture.store_meta VALUES ('encryptionSalt', '181becae25edcbbcd4cd398bbf778038');

SELECT pg_catalog.setval('larder_fixture.caches_id_seq', 4, true);

SELECT pg_catalog.setval('larder_fixture.entries_id_seq', 10, true);

ALTER TABLE ONLY larder_fixture.caches
    ADD CONSTRAINT caches_name_key UNIQUE (name);

ALTER TABLE ONLY larder_fixture.caches
    ADD CONSTRAINT caches_pkey PRIMARY KEY (id);

ALTER TABLE ONLY larder_fixture.changes
    ADD CONSTRAINT changes_pkey PRIMARY KEY (sequence);

ALTER TABLE ONLY larder_fixture.commits
    ADD CONSTRAINT commits_pkey PRIMARY KEY (id);

ALTER TABLE ONLY larder_fixture."entity.Author"
    ADD CONSTRAINT "entity.Author_pkey" PRIMARY KEY (name);

ALTER TABLE ONLY larder_fixture."entity.Book"
    ADD CONSTRAINT "entity.Book_pkey" PRIMARY KEY (title);

ALTER TABLE ONLY larder_fixture.entity_models
    ADD CONSTRAINT entity_models_pkey PRIMARY KEY (name);

ALTER TABLE ONLY larder_fixture.entries
    ADD CONSTRAINT entries_cache_grp_key_key UNIQUE (cache, grp, key);

ALTER TABLE ONLY larder_fixture.entries
    ADD CONSTRAINT entries_pkey PRIMARY KEY (id);

ALTER TABLE ONLY larder_fixture.meta
    ADD CONSTRAINT meta_pkey PRIMARY KEY (name);

ALTER TABLE ONLY larder_fixture.schemas
    ADD CONSTRAINT schemas_pkey PRIMARY KEY (type, version);

ALTER TABLE ONLY larder_fixture.store_meta
    ADD CONSTRAINT store_meta_pkey PRIMARY KEY (name);

CREATE INDEX "entity.Book.author" ON larder_fixture."entity.Book" USING btree (author);

CREATE INDEX entries_by_expiry ON larder_fixture.entries USING btree (cache, expires_at) WHERE (expires_at IS NOT NULL);

CREATE INDEX entries_by_use ON larder_fixture.entries USING btree (cache, used);
