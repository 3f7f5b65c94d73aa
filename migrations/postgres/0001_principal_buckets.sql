CREATE TABLE "principal_buckets" (
	"principal" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"refilled_at" bigint NOT NULL
);
