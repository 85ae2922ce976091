package io.shardflow.dataset.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class S3SettingsTest {

    @Test
    void shouldDefaultTheRegion() {
        S3Settings settings = new S3Settings("http://127.0.0.1:9000", "ak", "sk", "shardflow", null);

        assertThat(settings.region()).isEqualTo("us-east-1");
    }

    @Test
    void shouldNameTheBadSetting() {
        assertThatThrownBy(() -> new S3Settings("", "ak", "sk", "b-1", null)).hasMessageContaining("endpoint");
        assertThatThrownBy(() -> new S3Settings("ftp://host", "ak", "sk", "b-1", null)).hasMessageContaining("endpoint 'ftp://host'");
        assertThatThrownBy(() -> new S3Settings("http://h:1", " ", "sk", "b-1", null)).hasMessageContaining("access key");
        assertThatThrownBy(() -> new S3Settings("http://h:1", "ak", null, "b-1", null)).hasMessageContaining("secret key");
        assertThatThrownBy(() -> new S3Settings("http://h:1", "ak", "sk", "Bad_Bucket", null)).hasMessageContaining("bucket 'Bad_Bucket'");
        assertThatThrownBy(() -> new S3Settings("http://h:1", "ak", "sk", "ab", null)).hasMessageContaining("bucket 'ab'");
    }

    @Test
    void shouldNotPrintTheSecret() {
        S3Settings settings = new S3Settings("http://127.0.0.1:9000", "ak", "very-secret", "shardflow", "eu-west-1");

        assertThat(settings.toString()).doesNotContain("very-secret").contains("ak", "shardflow", "eu-west-1");
    }
}
