/**
 * A stand-in for the eCourts High Court portal, for fuzzing the live timeline fetch: the
 * loopback server the tests use (test/support/ecourts-portal-server.ts), serving the real
 * records in ../shared/data through the subset of the portal's wire format our adapter
 * speaks. Prints its URL on the first line and serves until killed.
 */
import { startEcourtsPortalServer } from '../test/support/ecourts-portal-server.ts';

const server = await startEcourtsPortalServer();
process.stdout.write(`${server.url}\n`);
