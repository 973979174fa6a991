export { tempFolders } from './temp-folders.js';
export { runReadmeExample } from './readme-example.js';
