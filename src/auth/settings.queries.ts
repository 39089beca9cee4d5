/** SQL for the settings table: small values the deployment keeps in its store. */
import type { Db } from '../db/database.js';

/** Stores `value` under `key` unless one is already there; returns whichever value won. */
export async function getOrInsertSetting(db: Db, key: string, value: string): Promise<string> {
  await db.insertInto('settings').values({ key, value }).onConflict((oc) => oc.column('key').doNothing()).execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}

/** Removes the setting `key`, if there is one. */
export async function deleteSetting(db: Db, key: string): Promise<void> {
  await db.deleteFrom('settings').where('key', '=', key).execute();
}
