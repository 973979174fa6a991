/** What `collect` deleted for good. */
export interface CollectOutcome {
  collected: { agentId: string; retiredAt: string }[];
}
