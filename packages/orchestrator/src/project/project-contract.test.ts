import { describeCairnApiContract } from '../testing/cairn-api-contract.js';
import { makeTempProject, SAMPLE_FILES } from '../testing/temp-project.js';

describeCairnApiContract('the in-process project (openProject)', async () => {
  const temp = makeTempProject(SAMPLE_FILES);
  const project = temp.open();
  await project.sync();
  return {
    api: project,
    temp,
    close: async () => {
      await project.close();
      temp.cleanup();
    },
  };
});
