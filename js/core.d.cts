// TypeScript declarations of gridsample/core's CommonJS entry (core.cjs): core_api.d.cts, with HeapTensor a type only (core.cjs exports no such class).
export type { HeapTensor } from './core_api.cjs';
export * from './core_api.cjs';
