package io.shardflow.app;

import io.apicurio.registry.serde.avro.DefaultAvroDatumProvider;
import org.apache.avro.Schema;
import org.apache.avro.io.DatumReader;

/**
 * Apicurio's datum provider, with the reader of the last writer schema kept by identity. Its own
 * cache is keyed by the schema's parsing fingerprint, which it computes on every record: a walk over
 * the whole schema (a few per cent of ingest-app's CPU). The deserializer hands over the same
 * {@link Schema} instance for every record of one schema id (its schema cache holds the parsed
 * schema), so an identity check finds the reader; another instance (a second schema id, or the
 * registry cache refreshed) takes the fingerprinting path once and becomes the one kept.
 */
public final class CachedDatumProvider<T> extends DefaultAvroDatumProvider<T> {

    private record Last<T>(Schema schema, DatumReader<T> reader) {
    }

    private volatile Last<T> last;

    @Override
    public DatumReader<T> createDatumReader(Schema schema) {
        Last<T> cached = last;
        if (cached != null && cached.schema == schema) {
            return cached.reader;
        }
        DatumReader<T> reader = super.createDatumReader(schema);
        last = new Last<>(schema, reader);
        return reader;
    }
}
