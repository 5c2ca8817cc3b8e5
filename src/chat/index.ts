export * from './conversation-ref.js';
export * from './inbound.js';
export * from './chat-adapter.js';
export * from './action-id.js';
export * from './split-text.js';
