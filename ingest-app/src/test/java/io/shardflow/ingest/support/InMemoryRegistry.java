package io.shardflow.ingest.support;

import io.apicurio.registry.resolver.client.RegistryArtifactReference;
import io.apicurio.registry.resolver.client.RegistryClientFacade;
import io.apicurio.registry.resolver.client.RegistryVersionCoordinates;
import io.apicurio.registry.resolver.strategy.ArtifactReference;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** A schema registry in memory, for serde round trips in unit tests; unknown ids fail like a 404. */
public final class InMemoryRegistry implements RegistryClientFacade {

    private final Map<String, Long> idBySchema = new ConcurrentHashMap<>();
    private final Map<Long, String> schemaById = new ConcurrentHashMap<>();
    private final Map<String, Long> idByArtifact = new ConcurrentHashMap<>();
    private final Map<Long, List<RegistryArtifactReference>> referencesById = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);

    private long register(String artifactId, String schema) {
        long id = idBySchema.computeIfAbsent(schema, s -> {
            long fresh = nextId.getAndIncrement();
            schemaById.put(fresh, s);
            return fresh;
        });
        idByArtifact.put(artifactId, id);
        return id;
    }

    private String lookup(long id) {
        String schema = schemaById.get(id);
        if (schema == null) {
            throw new IllegalStateException("artifact with id " + id + " not found (404)");
        }
        return schema;
    }

    @Override
    public String getSchemaByContentId(Long contentId) {
        return lookup(contentId);
    }

    @Override
    public String getSchemaByGlobalId(long globalId, boolean dereferenced) {
        return lookup(globalId);
    }

    @Override
    public String getSchemaByGAV(String groupId, String artifactId, String version) {
        Long id = idByArtifact.get(artifactId);
        return id == null ? null : lookup(id);
    }

    @Override
    public String getSchemaByContentHash(String contentHash) {
        throw new UnsupportedOperationException("content hashes are not used");
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByContentId(long contentId) {
        return referencesById.getOrDefault(contentId, List.of());
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByGlobalId(long globalId) {
        return referencesById.getOrDefault(globalId, List.of());
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByGAV(String groupId, String artifactId, String version) {
        Long id = idByArtifact.get(artifactId);
        return id == null ? List.of() : referencesById.getOrDefault(id, List.of());
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByContentHash(String contentHash) {
        return List.of();
    }

    @Override
    public List<RegistryVersionCoordinates> searchVersionsByContent(String schemaString, String artifactType,
                                                                    ArtifactReference reference, boolean canonical) {
        Long id = idBySchema.get(schemaString);
        return id == null ? List.of() : List.of(RegistryVersionCoordinates.create(id, id, "default", reference.getArtifactId(), "1"));
    }

    @Override
    public RegistryVersionCoordinates createSchema(String artifactType, String groupId, String artifactId, String version,
                                                   String autoCreateBehavior, boolean canonical, String schemaString,
                                                   Set<RegistryArtifactReference> references) {
        long id = register(artifactId, schemaString);
        if (references != null && !references.isEmpty()) {
            // Nested named types (Tensor, DType) are registered as artifacts of their own and referenced.
            referencesById.put(id, List.copyOf(references));
        }
        return RegistryVersionCoordinates.create(id, id, groupId, artifactId, "1");
    }

    @Override
    public RegistryVersionCoordinates getVersionCoordinatesByGAV(String groupId, String artifactId, String version) {
        Long id = idByArtifact.get(artifactId);
        return id == null ? null : RegistryVersionCoordinates.create(id, id, groupId, artifactId, "1");
    }

    @Override
    public Object getClient() {
        return null;
    }
}
