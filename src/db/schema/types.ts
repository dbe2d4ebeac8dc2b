/** Column types drizzle's pg-core lacks but the event store needs. */
import { customType } from 'drizzle-orm/pg-core';

/** 64-bit transaction id; projectors order by it so they never skip a late commit. */
export const xid8 = customType<{ data: string; driverData: string }>({
  dataType: () => 'xid8',
});
