/**
 * Decodes an OTLP/HTTP protobuf trace export (`ExportTraceServiceRequest`, opentelemetry-proto's trace/v1 and
 * common/v1 field numbers) into the shape the fake collector reads from the JSON encoding: ids in hex, attributes as
 * plain values. Written from the wire format rather than with the exporter's own serializer, so a test checks the
 * bytes the exporter sent against the specification, not the exporter against itself. Fields the collector does
 * not read (times, events, dropped counts, schema URLs) are skipped.
 */

/** A span as the collector reads it, from either encoding. */
export interface DecodedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  readonly links?: { traceId: string; spanId: string }[];
  readonly status?: { code?: number };
}

export interface DecodedExport {
  readonly resourceSpans: {
    resource?: { attributes: Record<string, unknown> };
    scopeSpans: { spans: DecodedSpan[] }[];
  }[];
}

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const FIXED32 = 5;

/** One protobuf message's fields, read in order. */
class Reader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  /** Each field as [number, wire type, value]: a number for varints, the bytes for length-delimited fields. */
  *fields(): Generator<[number, number, number | Uint8Array]> {
    while (this.pos < this.buf.length) {
      const tag = this.varint();
      const field = Math.floor(tag / 8);
      const wire = tag % 8;
      if (wire === VARINT) yield [field, wire, this.varint()];
      else if (wire === BYTES) {
        const length = this.varint();
        if (this.pos + length > this.buf.length) throw new Error('protobuf: a field runs past the end of its message');
        yield [field, wire, this.buf.subarray(this.pos, (this.pos += length))];
      } else if (wire === FIXED64) yield [field, wire, this.buf.subarray(this.pos, (this.pos += 8))];
      else if (wire === FIXED32) yield [field, wire, this.buf.subarray(this.pos, (this.pos += 4))];
      else throw new Error(`protobuf: wire type ${wire} is not used by OTLP`);
    }
  }

  /** A base-128 varint (exact up to 2^53, enough for token counts and enums). */
  private varint(): number {
    let value = 0;
    for (let shift = 1; ; shift *= 128) {
      if (this.pos >= this.buf.length) throw new Error('protobuf: a varint runs past the end');
      const byte = this.buf[this.pos++]!;
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
    }
  }
}

const bytesOf = (v: number | Uint8Array): Uint8Array => {
  if (typeof v === 'number') throw new Error('protobuf: expected a length-delimited field');
  return v;
};
const hex = (v: number | Uint8Array) => Buffer.from(bytesOf(v)).toString('hex');
const text = (v: number | Uint8Array) => Buffer.from(bytesOf(v)).toString('utf8');
const numberOf = (v: number | Uint8Array): number => {
  if (typeof v !== 'number') throw new Error('protobuf: expected a varint');
  return v;
};

/** `AnyValue`: string 1, bool 2, int 3, double 4, array 5 (its `values` field 1). */
function anyValue(buf: Uint8Array): unknown {
  let value: unknown = null;
  for (const [field, wire, v] of new Reader(buf).fields()) {
    if (field === 1) value = text(v);
    else if (field === 2) value = numberOf(v) !== 0;
    else if (field === 3) value = numberOf(v);
    else if (field === 4 && wire === FIXED64) value = Buffer.from(bytesOf(v)).readDoubleLE(0);
    else if (field === 5)
      value = [...new Reader(bytesOf(v)).fields()]
        .filter(([f]) => f === 1)
        .map(([, , item]) => anyValue(bytesOf(item)));
  }
  return value;
}

/** A `KeyValue` (key 1, value 2) added to `into`. */
function keyValue(buf: Uint8Array, into: Record<string, unknown>): void {
  let key = '';
  let value: unknown = null;
  for (const [field, , v] of new Reader(buf).fields()) {
    if (field === 1) key = text(v);
    else if (field === 2) value = anyValue(bytesOf(v));
  }
  into[key] = value;
}

/** `Span`: trace id 1, span id 2, parent 4, name 5, kind 6, attributes 9, links 13, status 15 (its code: 3). */
function span(buf: Uint8Array): DecodedSpan {
  const out = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    name: '',
    kind: 0,
    attributes: {} as Record<string, unknown>,
    links: [] as { traceId: string; spanId: string }[],
    status: { code: 0 },
  };
  for (const [field, , v] of new Reader(buf).fields()) {
    if (field === 1) out.traceId = hex(v);
    else if (field === 2) out.spanId = hex(v);
    else if (field === 4) out.parentSpanId = hex(v);
    else if (field === 5) out.name = text(v);
    else if (field === 6) out.kind = numberOf(v);
    else if (field === 9) keyValue(bytesOf(v), out.attributes);
    else if (field === 13) {
      const link = { traceId: '', spanId: '' };
      for (const [f, , lv] of new Reader(bytesOf(v)).fields()) {
        if (f === 1) link.traceId = hex(lv);
        else if (f === 2) link.spanId = hex(lv);
      }
      out.links.push(link);
    } else if (field === 15) {
      for (const [f, , sv] of new Reader(bytesOf(v)).fields()) if (f === 3) out.status.code = numberOf(sv);
    }
  }
  return out;
}

/** `ExportTraceServiceRequest` → `ResourceSpans` (resource 1, scope spans 2) → `ScopeSpans` (spans 2) → spans. */
export function decodeTraceExport(body: Uint8Array): DecodedExport {
  const resourceSpans: DecodedExport['resourceSpans'] = [];
  for (const [field, , rs] of new Reader(body).fields()) {
    if (field !== 1) continue;
    const entry: DecodedExport['resourceSpans'][number] = { resource: { attributes: {} }, scopeSpans: [] };
    for (const [f, , v] of new Reader(bytesOf(rs)).fields()) {
      if (f === 1)
        for (const [rf, , kv] of new Reader(bytesOf(v)).fields())
          if (rf === 1) keyValue(bytesOf(kv), entry.resource!.attributes);
      if (f === 2)
        entry.scopeSpans.push({
          spans: [...new Reader(bytesOf(v)).fields()].filter(([sf]) => sf === 2).map(([, , s]) => span(bytesOf(s))),
        });
    }
    resourceSpans.push(entry);
  }
  return { resourceSpans };
}
