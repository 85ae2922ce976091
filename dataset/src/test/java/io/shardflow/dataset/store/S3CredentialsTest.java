package io.shardflow.dataset.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.minio.credentials.Credentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class S3CredentialsTest {

    private static final String ENDPOINT = "https://127.0.0.1:9000";

    @TempDir
    Path tmp;

    @Test
    void shouldPreferStaticKeysWithTheirSessionToken() {
        S3Settings settings = new S3Settings(ENDPOINT, "ak", "sk", "bucket", null, "token", null);

        Credentials credentials = S3Credentials.provider(settings, Map.of("AWS_ACCESS_KEY_ID", "env-ak",
                "AWS_SECRET_ACCESS_KEY", "env-sk")).fetch();

        assertThat(credentials.accessKey()).isEqualTo("ak");
        assertThat(credentials.secretKey()).isEqualTo("sk");
        assertThat(credentials.sessionToken()).isEqualTo("token");
    }

    @Test
    void shouldTakeTheEnvironmentsKeysAndSessionTokenWhenNoStaticKeysAreSet() {
        Credentials credentials = S3Credentials.provider(chain(), Map.of("AWS_ACCESS_KEY_ID", "env-ak",
                "AWS_SECRET_ACCESS_KEY", "env-sk", "AWS_SESSION_TOKEN", "env-token")).fetch();

        assertThat(credentials.accessKey()).isEqualTo("env-ak");
        assertThat(credentials.secretKey()).isEqualTo("env-sk");
        assertThat(credentials.sessionToken()).isEqualTo("env-token");
    }

    @Test
    void shouldReadTheNamedProfileOfTheSharedCredentialsFile() throws Exception {
        Path file = Files.writeString(tmp.resolve("credentials"), String.join("\n",
                "[default]", "aws_access_key_id = default-ak", "aws_secret_access_key = default-sk",
                "[trainer]", "aws_access_key_id = trainer-ak", "aws_secret_access_key = trainer-sk",
                "aws_session_token = trainer-token", ""));

        Credentials credentials = S3Credentials.provider(chain(), Map.of("AWS_SHARED_CREDENTIALS_FILE", file.toString(),
                "AWS_PROFILE", "trainer")).fetch();

        assertThat(credentials.accessKey()).isEqualTo("trainer-ak");
        assertThat(credentials.secretKey()).isEqualTo("trainer-sk");
        assertThat(credentials.sessionToken()).isEqualTo("trainer-token");
    }

    @Test
    void shouldSayWhereCredentialsCanComeFromWhenNoneIsSet() {
        assertThatThrownBy(() -> S3Credentials.provider(chain(), Map.of("HOME", tmp.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("AWS_ACCESS_KEY_ID")
                .hasMessageContaining("AWS_WEB_IDENTITY_TOKEN_FILE");
    }

    @Test
    void shouldNeverPrintTheSecretOrTheSessionToken() {
        S3Settings settings = new S3Settings(ENDPOINT, "ak", "very-secret", "bucket", null, "session-secret", null);

        assertThat(settings.toString()).contains("ak").doesNotContain("very-secret").doesNotContain("session-secret");
    }

    @Test
    void shouldRefuseHalfAPairOfStaticKeysAndAMissingCaBundle() {
        assertThatThrownBy(() -> new S3Settings(ENDPOINT, "ak", null, "bucket", null, null, null))
                .hasMessageContaining("secret key is not set");
        assertThatThrownBy(() -> new S3Settings(ENDPOINT, "ak", "sk", "bucket", null, null, tmp.resolve("none.pem").toString()))
                .hasMessageContaining("CA bundle");
    }

    private static S3Settings chain() {
        return new S3Settings(ENDPOINT, null, null, "bucket", null, null, null);
    }
}
