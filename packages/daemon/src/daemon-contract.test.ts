import { describeCairnApiContract, makeTempProject, SAMPLE_FILES } from '@cairn/orchestrator/testing';
import { startDaemon } from './run-daemon.js';
import { connectDaemon } from './socket-client.js';

describeCairnApiContract("the daemon's client over a real socket (connectDaemon to startDaemon)", async () => {
  const temp = makeTempProject(SAMPLE_FILES);
  const daemon = await startDaemon(temp.root, { cairnHome: temp.home });
  const client = await connectDaemon(temp.root, daemon.socketPath);
  if (client === undefined) throw new Error(`the daemon does not answer on ${daemon.socketPath}`);
  return {
    api: client,
    temp,
    close: async () => {
      await client.close();
      await daemon.stop();
      temp.cleanup();
    },
  };
});
