-- Next states waiting for their turn (a proxy replica recorded the turn carrying one before the turn it belongs to
-- reached Postgres): written with the carrying turn, taken by the transaction that inserts the target turn.
-- CreateTable
CREATE TABLE "pending_next_states" (
    "targetId" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "nextState" JSON NOT NULL,
    "role" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "until" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "pending_next_states_pkey" PRIMARY KEY ("targetId")
);

-- AddForeignKey
ALTER TABLE "pending_next_states" ADD CONSTRAINT "pending_next_states_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

