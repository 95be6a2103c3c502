from django.db import migrations

from ._postgresql import run_sql

# The record of settings changes is append-only in the database too, as the result history
# is (0015): an UPDATE of a row is refused whatever path it comes by, except the one
# deleting a user makes (SET NULL empties `changed_by`). A DELETE is refused too, unless
# the row goes with its tournament: Django deletes the records before the tournament row
# in the same transaction, so the check is a constraint trigger deferred to the commit,
# when a record whose tournament still exists cannot have been deleted with it.
APPEND_ONLY = """
CREATE FUNCTION tournaments_settingschange_append_only() RETURNS trigger AS $$
BEGIN
  IF (NEW.id, NEW.tournament_id, NEW.changed_at, NEW.before, NEW.after, NEW.reason)
       IS DISTINCT FROM
     (OLD.id, OLD.tournament_id, OLD.changed_at, OLD.before, OLD.after, OLD.reason)
     OR NEW.changed_by_id IS NOT NULL AND NEW.changed_by_id IS DISTINCT FROM OLD.changed_by_id THEN
    RAISE EXCEPTION 'the record of settings changes is append-only';
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER tournaments_settingschange_no_update BEFORE UPDATE ON tournaments_settingschange
  FOR EACH ROW EXECUTE FUNCTION tournaments_settingschange_append_only();

CREATE FUNCTION tournaments_settingschange_kept() RETURNS trigger AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM tournaments_tournament WHERE id = OLD.tournament_id) THEN
    RAISE EXCEPTION 'the record of settings changes is append-only: a change goes only with its tournament';
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE CONSTRAINT TRIGGER tournaments_settingschange_no_delete
  AFTER DELETE ON tournaments_settingschange DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION tournaments_settingschange_kept();
"""
DROP_APPEND_ONLY = """
DROP TRIGGER IF EXISTS tournaments_settingschange_no_delete ON tournaments_settingschange;
DROP FUNCTION IF EXISTS tournaments_settingschange_kept();
DROP TRIGGER IF EXISTS tournaments_settingschange_no_update ON tournaments_settingschange;
DROP FUNCTION IF EXISTS tournaments_settingschange_append_only();
"""


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0015_result_history"),
    ]

    operations = [
        run_sql(APPEND_ONLY, DROP_APPEND_ONLY),
    ]
