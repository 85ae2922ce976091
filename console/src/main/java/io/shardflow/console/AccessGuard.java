package io.shardflow.console;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpStatus;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;

/**
 * Runs before every request. It sets headers that make an injected string harmless even if escaping
 * ever missed one (a Content-Security-Policy that allows only the console's own script and styles),
 * and checks who asks: with credentials configured every request must carry them (HTTP basic auth
 * with the user and password, or the token as a bearer token or as the basic-auth password, so a
 * browser can log in too); without them (loopback only) the Host header must name this machine, so a
 * web page elsewhere cannot reach the console through DNS rebinding.
 */
final class AccessGuard implements Handler {

    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

    static final String HEALTH = "/health";

    private final Optional<ConsoleSettings.Credentials> credentials;

    AccessGuard(Optional<ConsoleSettings.Credentials> credentials) {
        this.credentials = credentials;
    }

    @Override
    public void handle(Context ctx) {
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("X-Frame-Options", "DENY");
        if (ctx.path().equals(HEALTH)) {
            return; // liveness probes carry no credentials and the answer ("ok") tells nothing
        }
        if (credentials.isPresent()) {
            if (!authorized(ctx.header("Authorization"), credentials.get())) {
                ctx.header("WWW-Authenticate", "Basic realm=\"shardflow console\", charset=\"UTF-8\"");
                ctx.status(HttpStatus.UNAUTHORIZED).result("authentication required\n");
                ctx.skipRemainingHandlers();
            }
        } else if (!loopbackHost(ctx.host())) {
            ctx.status(HttpStatus.FORBIDDEN).result("this console answers only to localhost\n");
            ctx.skipRemainingHandlers();
        }
    }

    static boolean authorized(String header, ConsoleSettings.Credentials expected) {
        if (header == null) {
            return false;
        }
        if (header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return expected.user() == null && same(header.substring(7).strip(), expected.secret());
        }
        if (!header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return false;
        }
        String pair;
        try {
            pair = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return false;
        }
        int colon = pair.indexOf(':');
        if (colon < 0) {
            return false;
        }
        boolean userOk = expected.user() == null || same(pair.substring(0, colon), expected.user());
        return userOk & same(pair.substring(colon + 1), expected.secret());
    }

    /** Compares in time that does not depend on where the strings differ. */
    private static boolean same(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    static boolean loopbackHost(String hostHeader) {
        if (hostHeader == null) {
            return false;
        }
        String host = hostHeader.toLowerCase(Locale.ROOT);
        if (host.startsWith("[")) {
            host = host.substring(1, Math.max(1, host.indexOf(']')));
        } else if (host.indexOf(':') == host.lastIndexOf(':') && host.contains(":")) {
            host = host.substring(0, host.indexOf(':'));
        }
        if (host.equals("localhost")) {
            return true;
        }
        // Only literal addresses: a name other than localhost is not resolved (that is what rebinding abuses).
        if (!host.matches("[0-9.]+|[0-9a-f:]+")) {
            return false;
        }
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}
