// Compiled by types.test.js with tsc --strict: the declarations describe what index.js does, and refuse misuse.
import Fauxth, { FauxthError, type Message } from '../index.js';

async function typical(): Promise<string | null> {
  const fauxth = await Fauxth.start({ args: ['--clock', 'frozen'] });
  const message: Message = await fauxth.waitForMessage({ to: 'ada@example.com', purpose: 'verify_email', timeout: 5 });
  const when: Date = await fauxth.advance({ days: 1 });
  await fauxth.withFault({ match: { operation: 'supabase:token.password' }, effect: { type: 'error', error: 'server_error' } },
    async (rule) => rule.id.length);
  const id: string = await fauxth.withTenant('firebase', async (tenant) => tenant.id);
  const everywhere = await fauxth.users(null, { q: 'ada@example.com', limit: 10 });
  try {
    await fauxth.restore('missing');
  } catch (error) {
    if (error instanceof FauxthError && error.status === 404) return `${id} ${when.toISOString()} ${everywhere.length}`;
  }
  await fauxth.stop();
  return message.code;
}

async function misuse(fauxth: Fauxth) {
  // @ts-expect-error: not a dialect
  await fauxth.createTenant('mysql');
  // @ts-expect-error: advance takes seconds or a duration, not a string
  await fauxth.advance('1 day');
  // @ts-expect-error: a message's codes are strings
  const n: number = (await fauxth.waitForMessage()).codes[0];
  // @ts-expect-error: across tenants there is no email lookup, only q
  await fauxth.users(null, { email: 'ada@example.com' });
  return n;
}

export { typical, misuse };
