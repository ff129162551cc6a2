/** The SQLite outbox operations a twin test compares the PostgreSQL ones with, under one name each. */
export { deliveryLeftovers, webhookLeftovers } from '../../../../db/outbox/drop-leftovers'
export { findDelivery } from '../../../../db/outbox/find-delivery'
export { insertTestDelivery } from '../../../../db/outbox/insert-test-delivery'
export { listDeliveries } from '../../../../db/outbox/list-deliveries'
export { pruneDeliveries } from '../../../../db/outbox/prune'
export { failedInWindow, requeueFailed } from '../../../../db/outbox/requeue-failed'
export { outboxRowExists } from '../../../../db/outbox/row-exists'
export { loadSendTarget } from '../../../../db/outbox/send-target'
