package io.shardflow.gateway.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The device token's text form, {@code sfgw_<id>_<secret>}: a 16-character id (the object key of
 * its record, not secret) and 256 random bits of secret. Only the secret's SHA-256 is stored. A
 * slow password hash would add nothing for a random 256-bit secret (there is no dictionary to try)
 * and would cost CPU on every request, which is why GitHub and others hash API tokens this way.
 */
public final class TokenSecrets {

    private static final String PREFIX = "sfgw_";
    private static final Pattern FORMAT = Pattern.compile("sfgw_([a-z2-7]{16})_([A-Za-z0-9_-]{43})");
    private static final char[] ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();

    private TokenSecrets() {
    }

    /** A token's parts: the id names its record, the secret proves possession. */
    public record Parsed(String id, String secret) {
        @Override
        public String toString() {
            return "Parsed[id=" + id + "]";
        }
    }

    public static String newId(SecureRandom random) {
        char[] id = new char[16];
        for (int i = 0; i < id.length; i++) {
            id[i] = ID_ALPHABET[random.nextInt(ID_ALPHABET.length)];
        }
        return new String(id);
    }

    public static String newSecret(SecureRandom random) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    public static String format(String id, String secret) {
        return PREFIX + id + "_" + secret;
    }

    /** The parts of {@code token}, or empty when it is not a device token at all. */
    public static Optional<Parsed> parse(String token) {
        Matcher matcher = FORMAT.matcher(token);
        return matcher.matches() ? Optional.of(new Parsed(matcher.group(1), matcher.group(2))) : Optional.empty();
    }

    public static String sha256(String secret) {
        return HexFormat.of().formatHex(digest(secret));
    }

    /** Compares in constant time, so the answer's timing says nothing about how much of a guess was right. */
    public static boolean matches(String secret, String storedSha256) {
        byte[] stored;
        try {
            stored = HexFormat.of().parseHex(storedSha256);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(digest(secret), stored);
    }

    private static byte[] digest(String secret) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
