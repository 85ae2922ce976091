package io.shardflow.stack;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The key material of a secure stack, in {@code <workDir>/secure} (owner-only): a local CA
 * ({@code ca.pem}), the server certificates of the broker, the S3 server, the registry and the
 * identity provider, per principal a key store and a SCRAM password, and per OIDC client a secret
 * ({@link StackIdentity}). Made once per work dir and reused by every restart; the client files
 * ({@link #writeClientFiles}) are written again at every start, as they name the identity
 * provider's port. Secrets live only in owner-only files: never in a command line, a log or
 * {@code stack.json}.
 */
final class StackSecurity {

    /** CN of the broker's certificate: the principal of inter-broker and controller connections. */
    static final String BROKER_PRINCIPAL = "shardflow-broker";
    private static final String SECRETS = "secrets.properties";
    /** Bumped when the material gains a part; an older set is made anew (the CA key is not kept). */
    private static final String MATERIAL_VERSION_KEY = "material.version";
    private static final String MATERIAL_VERSION = "2";
    private static final String BROKER_KEYSTORE_PASSWORD = "broker.keystore.password";
    private static final String GATEWAY_KEYSTORE_PASSWORD = "gateway.keystore.password";
    private static final String SCRAM_MECHANISM = "SCRAM-SHA-512";

    private final Path dir;
    private final Properties secrets;
    private final StackIdentity identity;

    private StackSecurity(Path dir, Properties secrets) {
        this.dir = dir;
        this.secrets = secrets;
        this.identity = new StackIdentity(dir, secrets);
    }

    /** Loads the material of {@code workDir}, making it first if this work dir has none or an older set. */
    static StackSecurity prepare(Path workDir) {
        Path dir = OwnerOnlyFiles.directory(workDir.resolve("secure"));
        Properties secrets = Files.exists(dir.resolve(SECRETS)) ? read(dir.resolve(SECRETS)) : new Properties();
        if (!MATERIAL_VERSION.equals(secrets.getProperty(MATERIAL_VERSION_KEY))) {
            generate(dir);
            secrets = read(dir.resolve(SECRETS));
        }
        return new StackSecurity(dir, secrets);
    }

    private static Properties read(Path file) {
        Properties secrets = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            secrets.load(reader);
        } catch (IOException e) {
            throw new StackException("cannot read " + file, e);
        }
        return secrets;
    }

    private static void generate(Path dir) {
        StackCertificates ca = StackCertificates.newAuthority("shardflow-local-ca");
        Path clients = OwnerOnlyFiles.directory(dir.resolve("clients"));
        OwnerOnlyFiles.write(dir.resolve("ca.pem"), StackCertificates.pem(ca.authority()));
        Properties secrets = new Properties();
        String brokerPassword = newPassword();
        secrets.setProperty(BROKER_KEYSTORE_PASSWORD, brokerPassword);
        OwnerOnlyFiles.write(dir.resolve("broker.p12"), StackCertificates.keyStore(ca.server(BROKER_PRINCIPAL), brokerPassword.toCharArray()));
        // PEM, as MinIO, Keycloak and Apicurio (Quarkus) all take them.
        writePem(dir, "s3-public.crt", "s3-private.key", ca.server("shardflow-s3"));
        writePem(dir, StackIdentity.REGISTRY_CERTIFICATE, StackIdentity.REGISTRY_KEY, ca.server("shardflow-registry"));
        writePem(dir, StackIdentity.IDP_CERTIFICATE, StackIdentity.IDP_KEY, ca.server("shardflow-idp"));
        // The HTTP gateway's TLS listener (LocalGateway): devices trust ca.pem.
        String gatewayPassword = newPassword();
        secrets.setProperty(GATEWAY_KEYSTORE_PASSWORD, gatewayPassword);
        OwnerOnlyFiles.write(dir.resolve("gateway.p12"), StackCertificates.keyStore(ca.server("shardflow-gateway"), gatewayPassword.toCharArray()));
        OwnerOnlyFiles.write(dir.resolve("gateway-keystore.password"), gatewayPassword);
        for (StackPrincipal principal : StackPrincipal.values()) {
            String keyStorePassword = newPassword();
            secrets.setProperty(scramKey(principal), newPassword());
            secrets.setProperty(keyStoreKey(principal), keyStorePassword);
            OwnerOnlyFiles.write(keyStore(clients, principal),
                    StackCertificates.keyStore(ca.client(principal.id()), keyStorePassword.toCharArray()));
        }
        StackIdentity.generate(dir, ca, secrets, StackSecurity::newPassword);
        // Last: its version line means the material is complete.
        secrets.setProperty(MATERIAL_VERSION_KEY, MATERIAL_VERSION);
        StringBuilder text = new StringBuilder();
        secrets.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        OwnerOnlyFiles.write(dir.resolve(SECRETS), text.toString());
    }

    private static void writePem(Path dir, String certificateFile, String keyFile, StackCertificates.Identity server) {
        OwnerOnlyFiles.write(dir.resolve(certificateFile), StackCertificates.pem(server.certificate()));
        OwnerOnlyFiles.write(dir.resolve(keyFile), StackCertificates.pem(StackCertificates.pkcs8(server.key())));
    }

    /**
     * Per principal: the Kafka client files ({@link StackPrincipal#scramClientConfig},
     * {@link StackPrincipal#mtlsClientConfig}) and the registry settings
     * ({@link IdentityClient#registryConfig}). The edge principal's Kafka files also carry the
     * Apicurio serde's own keys, so a device (edge-client, the CLI's publish) that takes one file
     * reaches the registry as {@code shardflow-edge} too, looking schemas up without registering.
     */
    void writeClientFiles(String tokenEndpoint) {
        Path clients = clientDir();
        for (StackPrincipal principal : StackPrincipal.values()) {
            List<String> registryLines = principal == StackPrincipal.EDGE
                    ? identity.serdeLines(IdentityClient.EDGE, tokenEndpoint, caFile()) : List.of();
            OwnerOnlyFiles.write(principal.scramClientConfig(clients), lines(List.of(
                    "security.protocol=SASL_SSL",
                    "sasl.mechanism=" + SCRAM_MECHANISM,
                    "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                            + principal.id() + "\" password=\"" + secrets.getProperty(scramKey(principal)) + "\";",
                    "ssl.truststore.type=PEM",
                    "ssl.truststore.location=" + caFile()), registryLines));
            String keyStorePassword = secrets.getProperty(keyStoreKey(principal));
            OwnerOnlyFiles.write(principal.mtlsClientConfig(clients), lines(List.of(
                    "security.protocol=SSL",
                    "ssl.keystore.type=PKCS12",
                    "ssl.keystore.location=" + keyStore(clients, principal),
                    "ssl.keystore.password=" + keyStorePassword,
                    "ssl.key.password=" + keyStorePassword,
                    "ssl.truststore.type=PEM",
                    "ssl.truststore.location=" + caFile()), registryLines));
        }
        for (IdentityClient client : IdentityClient.values()) {
            OwnerOnlyFiles.write(client.registryConfig(clients), lines(identity.registryLines(client, tokenEndpoint, caFile()), List.of()));
        }
    }

    /** Every value of the secrets file but its version line. */
    List<String> secretValues() {
        return secrets.stringPropertyNames().stream().filter(key -> !key.equals(MATERIAL_VERSION_KEY)).map(secrets::getProperty)
                .toList();
    }

    StackIdentity identity() {
        return identity;
    }

    Path dir() {
        return dir;
    }

    Path clientDir() {
        return dir.resolve("clients");
    }

    Path caFile() {
        return dir.resolve("ca.pem");
    }

    /** The HTTP gateway's key store (PKCS12, a certificate for 127.0.0.1 and localhost from the stack's CA). */
    static Path gatewayKeyStore(Path workDir) {
        return workDir.resolve("secure").resolve("gateway.p12");
    }

    /** An owner-only file holding the gateway key store's password. */
    static Path gatewayKeyStorePassword(Path workDir) {
        return workDir.resolve("secure").resolve("gateway-keystore.password");
    }

    /** A certificate for an S3 server on 127.0.0.1 (PEM), and its key. */
    Path s3Certificate() {
        return dir.resolve("s3-public.crt");
    }

    Path s3PrivateKey() {
        return dir.resolve("s3-private.key");
    }

    /** SCRAM password of each principal, to create the users on the broker. */
    Map<StackPrincipal, String> scramPasswords() {
        Map<StackPrincipal, String> passwords = new EnumMap<>(StackPrincipal.class);
        for (StackPrincipal principal : StackPrincipal.values()) {
            passwords.put(principal, secrets.getProperty(scramKey(principal)));
        }
        return passwords;
    }

    /**
     * server.properties lines: SASL_SSL (SCRAM-SHA-512) for clients with passwords, SSL with
     * required client certificates (mTLS) for clients with certificates, inter-broker traffic and
     * the controller; the standard authorizer denying whatever no ACL allows.
     */
    List<String> brokerProperties(int saslPort, int mtlsPort, int controllerPort) {
        String host = StackPorts.HOST;
        String brokerPassword = secrets.getProperty(BROKER_KEYSTORE_PASSWORD);
        return List.of(
                "listeners=SASL_SSL://" + host + ":" + saslPort + ",SSL://" + host + ":" + mtlsPort
                        + ",CONTROLLER://" + host + ":" + controllerPort,
                "advertised.listeners=SASL_SSL://" + host + ":" + saslPort + ",SSL://" + host + ":" + mtlsPort,
                "listener.security.protocol.map=SASL_SSL:SASL_SSL,SSL:SSL,CONTROLLER:SSL",
                "inter.broker.listener.name=SSL",
                "controller.listener.names=CONTROLLER",
                "sasl.enabled.mechanisms=" + SCRAM_MECHANISM,
                "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;",
                "ssl.keystore.type=PKCS12",
                "ssl.keystore.location=" + dir.resolve("broker.p12"),
                "ssl.keystore.password=" + brokerPassword,
                "ssl.key.password=" + brokerPassword,
                "ssl.truststore.type=PEM",
                "ssl.truststore.location=" + caFile(),
                "listener.name.ssl.ssl.client.auth=required",
                "listener.name.controller.ssl.client.auth=required",
                // A certificate's principal is its CN, the same name as the SCRAM user: one set of ACLs for both.
                "ssl.principal.mapping.rules=RULE:^CN=([^,]+).*$/$1/,DEFAULT",
                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "allow.everyone.if.no.acl.found=false",
                "super.users=User:" + BROKER_PRINCIPAL + ";" + StackPrincipal.ADMIN.kafkaPrincipal());
    }

    /** The admin's mTLS client settings: it can create users before any SCRAM user exists. */
    Map<String, Object> adminClientSettings() {
        return KafkaClientFiles.load(StackPrincipal.ADMIN.mtlsClientConfig(clientDir()));
    }

    private static Path keyStore(Path clients, StackPrincipal principal) {
        return clients.resolve(principal.id() + ".p12");
    }

    private static String scramKey(StackPrincipal principal) {
        return "scram." + principal.id();
    }

    private static String keyStoreKey(StackPrincipal principal) {
        return "keystore." + principal.id();
    }

    private static String newPassword() {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static String lines(List<String> lines, List<String> more) {
        return "# Written by io.shardflow.stack for a local secure stack; holds secrets, keep it owner-only.\n"
                + String.join("\n", lines) + "\n" + (more.isEmpty() ? "" : String.join("\n", more) + "\n");
    }
}
