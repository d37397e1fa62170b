// TypeScript declarations of gridsample's CommonJS entry (index.cjs): api.d.cts, with HeapTensor a type only (index.cjs exports no such class).
export type { HeapTensor } from './api.cjs';
export * from './api.cjs';
