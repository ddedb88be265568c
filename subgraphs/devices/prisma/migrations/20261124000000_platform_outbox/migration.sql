-- Events now go to the platform outbox (platform.outbox), defined once for every service.
DROP TABLE "devices"."outbox";
