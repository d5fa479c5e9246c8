export * from './errors';
export * from './schemas';
export * from './links';
export * from './hal-client';
