package io.shardflow.gateway.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * How devices authenticate: device tokens ({@code shardflow gateway token create}, kept hashed in
 * the object store) always; OIDC/JWT bearer tokens too when a JWKS is configured.
 *
 * @param tokenCache    how long a token lookup (found, missing or revoked) is reused: the longest a
 *                      revocation takes to reach a running gateway
 * @param jwksFile      JSON Web Key Set file; empty for none
 * @param jwksUrl       JSON Web Key Set URL (an OIDC provider's jwks_uri); empty for none
 * @param jwksCa        PEM file of the CA(s) to trust for an https {@code jwksUrl}; empty trusts the JVM's CAs
 * @param deviceClaim   the claim holding the device id: {@code sub} for tokens a person's login
 *                      gave, {@code client_id} (RFC 9068) or {@code azp} for a device that is an
 *                      OAuth2 client of its own (client credentials)
 * @param datasetsClaim the claim listing the datasets the device may write ({@code *} for all)
 * @param clockSkew     how far past {@code exp} (and before {@code nbf}) a token is still taken
 */
public record AuthSettings(Duration tokenCache, String jwksFile, String jwksUrl, String jwksCa, String issuer, String audience,
                           String deviceClaim, String datasetsClaim, Duration clockSkew) {

    public static final String TOKEN_CACHE_MS = "auth.token.cache.ms";
    public static final String JWKS_FILE = "auth.jwt.jwks.file";
    public static final String JWKS_URL = "auth.jwt.jwks.url";
    public static final String JWKS_CA = "auth.jwt.jwks.ca";
    public static final String ISSUER = "auth.jwt.issuer";
    public static final String AUDIENCE = "auth.jwt.audience";
    public static final String DEVICE_CLAIM = "auth.jwt.device.claim";
    public static final String DATASETS_CLAIM = "auth.jwt.datasets.claim";
    public static final String CLOCK_SKEW_SECONDS = "auth.jwt.clock.skew.seconds";

    static void define(ConfigDef definition) {
        definition
                .define(TOKEN_CACHE_MS, Type.LONG, 10_000L, Range.between(0, 3_600_000), Importance.MEDIUM,
                        "how long a device token lookup is reused; a revoked token stops working within this time")
                .define(JWKS_FILE, Type.STRING, "", Importance.MEDIUM, "JWKS file to verify JWT bearer tokens with; empty for none")
                .define(JWKS_URL, Type.STRING, "", Importance.MEDIUM, "JWKS URL (an OIDC provider's jwks_uri); empty for none."
                        + " Fetched at start (the gateway does not start without it), then cached and refreshed; kept through an outage")
                .define(JWKS_CA, Type.STRING, "", Importance.MEDIUM,
                        "PEM file of the CA(s) that sign the identity provider's certificate, for an https JWKS URL; empty trusts the JVM's CAs")
                .define(ISSUER, Type.STRING, "", Importance.MEDIUM, "required 'iss' of a JWT; required when JWTs are accepted")
                .define(AUDIENCE, Type.STRING, "", Importance.MEDIUM, "required 'aud' of a JWT; required when JWTs are accepted")
                .define(DEVICE_CLAIM, Type.STRING, "sub", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                        "JWT claim holding the device id: sub for tokens of a person's login; client_id (or azp) when each device is an"
                                + " OAuth2 client of its own, using client credentials")
                .define(DATASETS_CLAIM, Type.STRING, "shardflow_datasets", new ConfigDef.NonEmptyString(), Importance.LOW,
                        "JWT claim listing the datasets the device may write (a list, or * for all); a token without it may write none")
                .define(CLOCK_SKEW_SECONDS, Type.INT, 30, Range.between(0, 600), Importance.LOW,
                        "how many seconds past its exp (or before its nbf) a JWT is still accepted, for clocks that differ");
    }

    static AuthSettings of(AbstractConfig config) {
        AuthSettings settings = new AuthSettings(Duration.ofMillis(config.getLong(TOKEN_CACHE_MS)), config.getString(JWKS_FILE),
                config.getString(JWKS_URL), config.getString(JWKS_CA), config.getString(ISSUER), config.getString(AUDIENCE),
                config.getString(DEVICE_CLAIM), config.getString(DATASETS_CLAIM), Duration.ofSeconds(config.getInt(CLOCK_SKEW_SECONDS)));
        if (!settings.jwksFile.isEmpty() && !settings.jwksUrl.isEmpty()) {
            throw new ConfigException(JWKS_FILE, settings.jwksFile, "set either " + JWKS_FILE + " or " + JWKS_URL + ", not both");
        }
        if (!settings.jwksFile.isEmpty() && !Files.isReadable(Path.of(settings.jwksFile))) {
            throw new ConfigException(JWKS_FILE, settings.jwksFile, "no readable file there");
        }
        if (!settings.jwksCa.isEmpty() && !Files.isReadable(Path.of(settings.jwksCa))) {
            throw new ConfigException(JWKS_CA, settings.jwksCa, "no readable file there");
        }
        if (settings.jwtEnabled() && (settings.issuer.isEmpty() || settings.audience.isEmpty())) {
            throw new ConfigException(settings.issuer.isEmpty() ? ISSUER : AUDIENCE, "",
                    "must be set when JWTs are accepted: a token from another issuer or for another service must not pass");
        }
        return settings;
    }

    public boolean jwtEnabled() {
        return !jwksFile.isEmpty() || !jwksUrl.isEmpty();
    }
}
