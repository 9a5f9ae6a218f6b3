// An empty stand-in written for cleanerlab (not Jackson's code): Kafka's
// message generator registers this module; the message files it reads
// need none of it. Compiled only by scripts/build-kafka-classes.sh.
package com.fasterxml.jackson.datatype.jdk8;

import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.Module;

public class Jdk8Module extends Module {
    @Override
    public String getModuleName() { return "Jdk8Module"; }

    @Override
    public Version version() { return Version.unknownVersion(); }

    @Override
    public void setupModule(SetupContext context) { }
}
