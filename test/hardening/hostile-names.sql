-- Names that collide with what JavaScript objects already have (Object.prototype members,
-- `__proto__`), and names that are markup, paths or punctuation: a docs page that keys
-- anything by them must still show every operation.
CREATE TABLE public."__proto__" (
  "__proto__" integer PRIMARY KEY,
  "constructor" text,
  "toString" text,
  "hasOwnProperty" text,
  "valueOf" text,
  "prototype" text
);
CREATE TABLE public."constructor" (id integer PRIMARY KEY, "__proto__" text);
CREATE TABLE public."toString" (id integer PRIMARY KEY, "constructor" text);
CREATE TABLE public."hasOwnProperty" (id integer PRIMARY KEY);
CREATE TABLE public."valueOf" (id integer PRIMARY KEY);
CREATE TABLE public."prototype" (id integer PRIMARY KEY);
CREATE FUNCTION public."__proto__"(x integer) RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT x';
CREATE FUNCTION public."constructor"() RETURNS text LANGUAGE sql STABLE AS 'SELECT ''c''';
CREATE FUNCTION public."toString"() RETURNS text LANGUAGE sql STABLE AS 'SELECT ''s''';
CREATE FUNCTION public."hasOwnProperty"("valueOf" text) RETURNS text LANGUAGE sql VOLATILE AS 'SELECT "valueOf"';
