/**
 * D1 tables for the meta area. Re-exported by db/schema.ts (drizzle-kit reads that file).
 */
export {};
