-- The database and the two roles docslice uses, created once by a superuser:
--   sudo -u postgres psql -v ON_ERROR_STOP=1 < deploy/postgres-setup.sql
-- then give each role its password without putting it in a command line or a shell history:
--   sudo -u postgres psql -c '\password docslice_crawl'    (and again for docslice_read)
-- docslice_crawl owns the database: it runs the crawl job and the migrate command, which creates the
-- schema and grants docslice_read what the replicas need (docs/deploy.md). docslice_read only reads: the
-- replicas connect as it, so a replica can change nothing.
CREATE ROLE docslice_crawl LOGIN;
CREATE ROLE docslice_read LOGIN;
CREATE DATABASE docslice OWNER docslice_crawl;
-- Nobody else connects (PostgreSQL lets every role connect to a new database by default).
REVOKE ALL ON DATABASE docslice FROM PUBLIC;
GRANT CONNECT ON DATABASE docslice TO docslice_read;
