package io.shardflow.stack;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.util.io.pem.PemGenerationException;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority for a local secure stack, made in-process: the broker's
 * certificate (valid for 127.0.0.1 and localhost) and client certificates whose CN is the principal.
 * Nothing here is meant for a real deployment, where certificates come from the organisation's CA.
 */
final class StackCertificates {

    private static final Duration VALIDITY = Duration.ofDays(30);
    private static final String SIGNATURE = "SHA256withECDSA";

    private final KeyPair caKeys;
    private final X509Certificate caCertificate;
    private final SecureRandom random = new SecureRandom();

    /** A certificate with its private key. */
    record Identity(PrivateKey key, X509Certificate certificate, X509Certificate issuer) {
    }

    private StackCertificates(KeyPair caKeys, X509Certificate caCertificate) {
        this.caKeys = caKeys;
        this.caCertificate = caCertificate;
    }

    static StackCertificates newAuthority(String name) {
        KeyPair keys = keyPair();
        X500Name subject = new X500Name("CN=" + name);
        X509Certificate certificate = sign(new JcaX509v3CertificateBuilder(subject, serial(new SecureRandom()), notBefore(),
                notAfter(), subject, keys.getPublic()), keys.getPrivate(), builder -> {
                    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
                    builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
                });
        return new StackCertificates(keys, certificate);
    }

    X509Certificate authority() {
        return caCertificate;
    }

    /** A server certificate for the loopback address; it also authenticates as a client (inter-broker, controller). */
    Identity server(String commonName) {
        return issue(commonName, true);
    }

    Identity client(String commonName) {
        return issue(commonName, false);
    }

    private Identity issue(String commonName, boolean server) {
        KeyPair keys = keyPair();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(caCertificate, serial(random), notBefore(), notAfter(),
                new X500Name("CN=" + commonName), keys.getPublic());
        X509Certificate certificate = sign(builder, caKeys.getPrivate(), b -> {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
            if (server) {
                b.addExtension(Extension.extendedKeyUsage, false,
                        new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
                b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.iPAddress, StackPorts.HOST), new GeneralName(GeneralName.dNSName, "localhost")}));
            } else {
                b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
            }
        });
        return new Identity(keys.getPrivate(), certificate, caCertificate);
    }

    /** A PKCS12 key store holding {@code identity}'s key and chain, under {@code password}. */
    static byte[] keyStore(Identity identity, char[] password) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("key", identity.key(), password, new Certificate[] {identity.certificate(), identity.issuer()});
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            store.store(out, password);
            return out.toByteArray();
        } catch (IOException | GeneralSecurityException e) {
            throw new StackException("cannot build a key store", e);
        }
    }

    /** A PKCS12 trust store holding only {@code certificate}, for servers that cannot read a PEM trust store. */
    static byte[] trustStore(X509Certificate certificate, char[] password) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setCertificateEntry("ca", certificate);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            store.store(out, password);
            return out.toByteArray();
        } catch (IOException | GeneralSecurityException e) {
            throw new StackException("cannot build a trust store", e);
        }
    }

    /** An SSL context trusting only the CA certificates in {@code pemFile}. */
    static SSLContext trusting(Path pemFile) {
        try (InputStream in = Files.newInputStream(pemFile)) {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int n = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trusted.setCertificateEntry("ca-" + n++, certificate);
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new StackException("cannot trust the CA in " + pemFile, e);
        }
    }

    /** {@code key} as unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY}), the form Go's TLS (MinIO) reads. */
    static Object pkcs8(PrivateKey key) {
        try {
            return new JcaPKCS8Generator(key, null);
        } catch (PemGenerationException e) {
            throw new StackException("cannot encode a private key", e);
        }
    }

    /** PEM text of the given objects (certificates, private keys), in order. */
    static String pem(Object... objects) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            for (Object object : objects) {
                writer.writeObject(object);
            }
        } catch (IOException e) {
            throw new StackException("cannot write PEM", e);
        }
        return text.toString();
    }

    private interface Extensions {
        void add(X509v3CertificateBuilder builder) throws CertIOException;
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer, Extensions extensions) {
        try {
            extensions.add(builder);
            return new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(signer)));
        } catch (CertIOException | OperatorCreationException | GeneralSecurityException e) {
            throw new StackException("cannot sign a certificate", e);
        }
    }

    /** EC P-256: fast to generate on a busy machine, and accepted by Kafka, MinIO and Python's ssl. */
    private static KeyPair keyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new StackException("cannot generate a key pair", e);
        }
    }

    private static BigInteger serial(SecureRandom random) {
        return new BigInteger(64, random).add(BigInteger.ONE);
    }

    private static Date notBefore() {
        return Date.from(Instant.now().minus(Duration.ofHours(1)));
    }

    private static Date notAfter() {
        return Date.from(Instant.now().plus(VALIDITY));
    }
}
