import { startFakeCollector } from '../tests/fakes/fake-otlp-collector.js';

/**
 * The bench's local OTLP/HTTP collector, in a process of its own as a real one is (its decoding never runs on
 * Errand's event loop): the tests' collector, which decodes every export (JSON or protobuf) into spans. It prints
 * its endpoint, then answers each IPC message with what it has received so far.
 */
const collector = await startFakeCollector();
process.stdout.write(`${collector.endpoint}\n`);
process.on('message', () => {
  const names = new Set(collector.spans.map((s) => s.name));
  process.send?.({
    spans: collector.spans.length,
    requests: collector.requests(),
    names: [...names].sort(),
    encodings: [...new Set(collector.encodings)],
  });
});
process.on('disconnect', () => void collector.close().then(() => process.exit(0)));
