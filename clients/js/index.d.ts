// Types for the Fauxth test helpers (index.js).

export class FauxthError extends Error {
  status: number;
  code: string;
  detail: string;
}

/** A captured email or SMS, as the control API returns it, with its first code and link at hand. */
export interface Message {
  id: string;
  channel: 'email' | 'sms';
  to: string;
  purpose?: string;
  tenant?: string;
  subject?: string;
  body?: string;
  codes: string[];
  links: string[];
  code: string | null;
  link: string | null;
  [field: string]: unknown;
}

/** A captured deep link: the URL an app would have been opened with, and its parameters. */
export interface DeepLink {
  id: string;
  url: string;
  scheme: string;
  params: Record<string, string>;
  tenant?: string;
  user_id?: string;
  source?: string;
  [field: string]: unknown;
}

export interface FaultRule {
  id?: string;
  description?: string;
  enabled?: boolean;
  match: Record<string, unknown>;
  effect: Record<string, unknown>;
  schedule?: Record<string, unknown>;
}

export interface StartOptions {
  /** The fauxth binary; default $FAUXTH_BIN, else `fauxth` on PATH. */
  binary?: string;
  /** Fauxth's flags: `['--clock', 'frozen']`, `['--seed', 'seed.json']`… */
  args?: string[];
  env?: Record<string, string | undefined>;
  /** Milliseconds to wait for the ready line. */
  readyTimeout?: number;
  /** How many stdout lines `lines` keeps, the newest (10,000). */
  linesKept?: number;
}

export type Json = any;

export class Fauxth {
  constructor(url: string, process?: unknown);
  readonly url: string;
  readonly controlUrl: string;
  /** The process `start` spawned; null for an attached server. */
  readonly process: unknown;
  /** What a started server printed on stdout, line by line: the newest `linesKept` (10,000 unless told). */
  readonly lines: string[];
  /** What it wrote on stderr: its last 256 KiB. */
  readonly stderr: string;

  static start(options?: StartOptions): Promise<Fauxth>;
  static attach(url?: string): Promise<Fauxth>;
  stop(options?: { signal?: string; timeout?: number }): Promise<number | string | null>;

  request(method: string, path: string, options?: { body?: Json; params?: Record<string, unknown>; timeout?: number }): Promise<Json>;
  health(): Promise<Json>;
  info(): Promise<Json>;
  reset(options?: { tenant?: string; keepClock?: boolean }): Promise<void>;
  snapshot(name: string, options?: { faults?: boolean }): Promise<void>;
  restore(name: string, options?: { tenant?: string }): Promise<void>;

  messages(filters?: { to?: string; channel?: string; purpose?: string; tenant?: string; since?: string; limit?: number }): Promise<Message[]>;
  waitForMessage(filters?: { to?: string; purpose?: string; channel?: string; tenant?: string; since?: string; timeout?: number }): Promise<Message>;
  deepLinks(filters?: { scheme?: string; tenant?: string; since?: string; limit?: number }): Promise<DeepLink[]>;
  waitForDeepLink(filters?: { scheme?: string; tenant?: string; since?: string; timeout?: number }): Promise<DeepLink>;

  now(): Promise<Date>;
  freeze(at?: Date | string): Promise<Date>;
  advance(by: number | { days?: number; hours?: number; minutes?: number; seconds?: number }): Promise<Date>;
  resume(): Promise<Date>;
  withFrozenClock<T>(body: (fauxth: Fauxth) => Promise<T> | T, at?: Date | string): Promise<T>;

  addFault(rule: FaultRule): Promise<FaultRule & { id: string }>;
  removeFault(id: string): Promise<void>;
  faults(): Promise<Array<FaultRule & { id: string }>>;
  withFault<T>(rule: FaultRule, body: (rule: FaultRule & { id: string }) => Promise<T> | T): Promise<T>;

  createTenant(dialect: 'supabase' | 'firebase' | 'cognito', fields?: { id?: string; [field: string]: Json }): Promise<Json>;
  deleteTenant(id: string): Promise<void>;
  withTenant<T>(dialect: 'supabase' | 'firebase' | 'cognito', body: (tenant: { id: string; [field: string]: Json }) => Promise<T> | T,
    fields?: Record<string, Json>): Promise<T>;
  /** A tenant's users; with `null`, every tenant's (`q` and `limit` only), each naming its `tenant`. */
  users(tenant: string, search?: { email?: string; phone?: string; q?: string }): Promise<Json[]>;
  users(tenant: null, search?: { q?: string; limit?: number }): Promise<Json[]>;
  createUser(tenant: string, fields: Record<string, Json>): Promise<Json>;
  events(filters?: { type?: string; tenant?: string; since?: string }): Promise<Json[]>;
}

export default Fauxth;
