export default () => ({score: 1});
