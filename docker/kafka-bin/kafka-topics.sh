#!/usr/bin/env bash
# The same tool as the upstream image's /opt/kafka/bin/kafka-topics.sh, for the init service.
CLASSPATH="/opt/kafka/libs/*" exec java -Xmx256m -Dlog4j2.configurationFile=/opt/kafka/log4j2.xml \
  org.apache.kafka.tools.TopicCommand "$@"
