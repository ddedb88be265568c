CREATE SCHEMA IF NOT EXISTS "esports";

CREATE TABLE "esports"."programs" (
    "id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "standard" TEXT NOT NULL,
    "institution_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "institution" JSONB NOT NULL,
    "program" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "programs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "programs_environment_check" CHECK ("environment" IN ('production', 'sandbox')),
    CONSTRAINT "programs_status_check" CHECK ("status" IN ('planning', 'active', 'suspended', 'archived'))
);
CREATE INDEX "programs_environment_institution_id_idx" ON "esports"."programs"("environment", "institution_id");
CREATE INDEX "programs_environment_status_idx" ON "esports"."programs"("environment", "status");

CREATE TABLE "esports"."teams" (
    "id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "program_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "game" TEXT NOT NULL,
    "tier" TEXT NOT NULL,
    "season_year" INTEGER NOT NULL,
    "season_league" TEXT,
    "season_division" TEXT,
    "wins" INTEGER NOT NULL DEFAULT 0,
    "losses" INTEGER NOT NULL DEFAULT 0,
    "ties" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "teams_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "teams_program_id_fkey" FOREIGN KEY ("program_id")
        REFERENCES "esports"."programs"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "teams_tier_check" CHECK ("tier" IN ('varsity', 'jv', 'novice')),
    CONSTRAINT "teams_record_check" CHECK ("wins" >= 0 AND "losses" >= 0 AND "ties" >= 0)
);
CREATE INDEX "teams_program_id_idx" ON "esports"."teams"("program_id");

CREATE TABLE "esports"."players" (
    "id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "program_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "grade" INTEGER NOT NULL,
    "personal" JSONB NOT NULL,
    "consent" JSONB NOT NULL,
    "performance" JSONB NOT NULL,
    "interests" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "players_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "players_program_id_fkey" FOREIGN KEY ("program_id")
        REFERENCES "esports"."programs"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "players_status_check" CHECK ("status" IN ('active', 'inactive', 'graduated'))
);
CREATE INDEX "players_program_id_idx" ON "esports"."players"("program_id");

CREATE TABLE "esports"."team_members" (
    "team_id" UUID NOT NULL,
    "player_id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "position" TEXT,
    "joined_date" TIMESTAMPTZ(3) NOT NULL,
    "slot" INTEGER NOT NULL,
    CONSTRAINT "team_members_pkey" PRIMARY KEY ("team_id", "player_id"),
    CONSTRAINT "team_members_team_id_fkey" FOREIGN KEY ("team_id")
        REFERENCES "esports"."teams"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "team_members_player_id_fkey" FOREIGN KEY ("player_id")
        REFERENCES "esports"."players"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "team_members_role_check" CHECK ("role" IN ('starter', 'substitute'))
);
CREATE INDEX "team_members_player_id_idx" ON "esports"."team_members"("player_id");

CREATE TABLE "esports"."matches" (
    "id" UUID NOT NULL,
    "environment" TEXT NOT NULL,
    "team_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "opponent" JSONB NOT NULL,
    "scheduled_at" TIMESTAMPTZ(3) NOT NULL,
    "location" TEXT,
    "venue" TEXT,
    "starters" TEXT[],
    "status" TEXT NOT NULL,
    "score_team" INTEGER,
    "score_opponent" INTEGER,
    "outcome" TEXT,
    "duration" INTEGER,
    "analysis" JSONB,
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "matches_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "matches_team_id_fkey" FOREIGN KEY ("team_id")
        REFERENCES "esports"."teams"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "matches_status_check" CHECK ("status" IN ('scheduled', 'completed'))
);
CREATE INDEX "matches_team_id_scheduled_at_idx" ON "esports"."matches"("team_id", "scheduled_at");

CREATE TABLE "esports"."experiences" (
    "id" UUID NOT NULL,
    "player_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "organization" TEXT,
    "description" TEXT,
    "start_date" TIMESTAMPTZ(3) NOT NULL,
    "end_date" TIMESTAMPTZ(3),
    "skills" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "experiences_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "experiences_player_id_fkey" FOREIGN KEY ("player_id")
        REFERENCES "esports"."players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "experiences_player_id_idx" ON "esports"."experiences"("player_id");

CREATE TABLE "esports"."achievements" (
    "id" UUID NOT NULL,
    "player_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "issuer" TEXT,
    "date" TIMESTAMPTZ(3) NOT NULL,
    "amount" DOUBLE PRECISION,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "achievements_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "achievements_player_id_fkey" FOREIGN KEY ("player_id")
        REFERENCES "esports"."players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "achievements_player_id_idx" ON "esports"."achievements"("player_id");
